/**
 * An endpoint's stats (`GET …/endpoint/{endpoint_id}/stats`) without `since` count the messages
 * of the 24 hours before `until` (or now), not every message kept: counting walks every message of
 * the window, and a window without a start grew with all of history. A caller that names `since`
 * still gets the window it named.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

const HOUR = 3_600_000;
const START = Date.UTC(2026, 0, 1, 10, 0);
const clock = new FakeClock(START);
let h: TestHookline;
let rx: Receiver;

beforeAll(async () => {
  h = await startHookline({ overrides: { clock } });
  rx = await Receiver.start(() => ({ status: 200 }));
});
afterAll(async () => {
  await h.stop();
  await rx.close();
});

interface Counts {
  success: number;
  pending: number;
}

describe("endpoint stats' window", () => {
  it("is the last 24 hours unless since is given", async () => {
    const app = await h.svix.application.create({ name: "Window" });
    const ep = await h.svix.endpoint.create(app.id, { url: rx.url("/w") });
    const send = async () => {
      const msg = await h.svix.message.create(app.id, { eventType: "a", payload: {} });
      await h.waitFor(deliveryOf(msg.id, "succeeded"));
    };
    await send(); // at 10:00 on the first day
    clock.advance(25 * HOUR);
    await send(); // at 11:00 the next day
    const stats = async (query: string) => {
      const res = await h.api<Counts>(
        "GET",
        `/api/v1/app/${app.id}/endpoint/${ep.id}/stats${query}`,
      );
      expect(res.status).toBe(200);
      return res.body.success;
    };
    expect(await stats("")).toBe(1);
    expect(await stats(`?since=${new Date(START).toISOString()}`)).toBe(2);
    // The day before `until`: the first message only.
    expect(await stats(`?until=${new Date(START + HOUR).toISOString()}`)).toBe(1);
  });
});
