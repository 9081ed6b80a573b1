/**
 * An endpoint whose circuit never opened shows it closed since the endpoint was made, before and
 * after the engine first sends to it, and after a restart: delivery.md says the circuit's state
 * and since when survive a restart. The engine used to start such a circuit "closed since" the
 * moment it first loaded the endpoint, so `since` moved on with every load and every restart.
 */
import { afterEach, describe, expect, it } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe("a circuit that never opened", () => {
  let h: TestHookline | undefined;
  let rx: Receiver | undefined;
  afterEach(async () => {
    await h?.stop();
    await rx?.close();
  });

  it("is closed since the endpoint was made, through deliveries and a restart", async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1, 10, 0));
    rx = await Receiver.start();
    h = await startHookline({ overrides: { clock } });
    const app = await h.svix.application.create({ name: "Acme" });
    const ep = await h.svix.endpoint.create(app.id, { url: rx.url("/hooks") });
    const circuitSince = async () =>
      (await h!.api<{ since: string }>("GET", `/api/v1/app/${app.id}/endpoint/${ep.id}/circuit`))
        .body.since;
    const made = ep.createdAt.toISOString();
    expect(await circuitSince()).toBe(made);

    clock.advance(3_600_000);
    const first = await h.svix.message.create(app.id, { eventType: "a.b", payload: {} });
    await h.waitFor(deliveryOf(first.id, "succeeded"));
    expect(await circuitSince()).toBe(made);

    const dataDir = h.dataDir;
    await h.stop(true);
    clock.advance(3_600_000);
    h = await startHookline({ dataDir, overrides: { clock } });
    const second = await h.svix.message.create(app.id, { eventType: "a.b", payload: {} });
    await h.waitFor(deliveryOf(second.id, "succeeded"));
    expect(await circuitSince()).toBe(made);
  });
});
