/**
 * Three gauges tell an operator whether delivery is being held back for the API's sake: what the
 * process holds (in flight or waiting for a slot), what it may hold now (the loop budget) and how
 * many deliveries it may start a second (the budget's pace, +Inf while unpaced).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anEndpoint, post } from "../support/dlq.js";
import { GatedReceiver } from "../support/gated-receiver.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { scrape } from "../support/metrics.js";

let h: TestHookline;
let rx: GatedReceiver;
beforeAll(async () => {
  h = await startHookline();
  rx = await GatedReceiver.start();
});
afterAll(async () => {
  rx.release();
  await h.stop();
  await rx.close();
});

describe("the delivery budget and pace gauges", () => {
  it("count the deliveries held while a receiver holds them, against the budget", async () => {
    const ep = await anEndpoint(h, rx.url());
    const ids = [];
    for (let n = 0; n < 3; n++) ids.push(await post(h, ep.appId, { n }));
    await rx.arrived(3);

    let s = await scrape(h.url, h.token);
    expect(s.get("hookline_deliveries_held")).toBe(3);
    // Between its floor and the engine's cap; where exactly depends on how long the posts above
    // waited for their commits (one slow commit halves it), which a test cannot pin down.
    const budget = s.get("hookline_delivery_budget")!;
    expect(budget).toBeGreaterThanOrEqual(32);
    expect(budget).toBeLessThanOrEqual(4096);
    // Unpaced, or (should those posts have waited) paced at no less than its floor.
    expect(s.get("hookline_delivery_pace")).toBeGreaterThanOrEqual(500);

    rx.release();
    for (const id of ids) await h.waitFor(deliveryOf(id, "succeeded"));
    s = await scrape(h.url, h.token);
    expect(s.get("hookline_deliveries_held")).toBe(0);
  });
});
