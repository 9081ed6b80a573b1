/**
 * Svix's endpoint stats (`svix.endpoint.getStats`): how many of the messages sent to an endpoint
 * stand in each status, each counted once by where its latest delivery stands.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

let h: TestHookline;
let rx: Receiver;
// A payload that says so is refused (400: permanent, dead at once) while this holds.
let refusing = true;
beforeAll(async () => {
  h = await startHookline();
  rx = await Receiver.start((req) =>
    refusing && JSON.parse(req.body.toString()).refuse ? { status: 400 } : { status: 200 },
  );
});
afterAll(async () => {
  await h.stop();
  await rx.close();
});

describe("endpoint stats through the official Svix client", () => {
  it("counts each message once, by its latest delivery, within since and until", async () => {
    const app = await h.svix.application.create({ name: "Stats" });
    const ep = await h.svix.endpoint.create(app.id, { url: rx.url("/stats") });
    const started = new Date();
    const ok = await h.svix.message.create(app.id, { eventType: "a", payload: { n: 1 } });
    const refused = await h.svix.message.create(app.id, {
      eventType: "a",
      payload: { refuse: true },
    });
    await h.svix.message.create(app.id, {
      eventType: "a",
      payload: { n: 2 },
      deliverAt: new Date(Date.now() + 3_600_000),
    });
    await h.waitFor(deliveryOf(ok.id, "succeeded"));
    await h.waitFor(deliveryOf(refused.id, "dead"));

    expect(await h.svix.endpoint.getStats(app.id, ep.id)).toEqual({
      success: 1,
      fail: 1,
      pending: 1,
      sending: 0,
      canceled: 0,
    });

    // Sent again and taken this time: the message counts as a success, once.
    refusing = false;
    await h.svix.messageAttempt.resend(app.id, refused.id, ep.id);
    await h.waitFor(deliveryOf(refused.id, "succeeded"));
    const after = await h.svix.endpoint.getStats(app.id, ep.id, { since: started });
    expect(after).toMatchObject({ success: 2, fail: 0, pending: 1 });

    const before = await h.svix.endpoint.getStats(app.id, ep.id, { until: started });
    expect(before).toMatchObject({ success: 0, fail: 0, pending: 0 });

    // A window that selects nothing is refused, naming until, as recover refuses it.
    const empty = `since=${started.toISOString()}&until=${started.toISOString()}`;
    const emptyWindow = await h.api<{ detail: { loc: string[]; msg: string }[] }>(
      "GET",
      `/api/v1/app/${app.id}/endpoint/${ep.id}/stats?${empty}`,
    );
    expect(emptyWindow.status).toBe(422);
    expect(emptyWindow.body.detail.map((p) => [p.loc.join("."), p.msg])).toEqual([
      ["query.until", "must be later than since"],
    ]);
  });
});
