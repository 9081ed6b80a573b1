/**
 * Deleting an endpoint removes its series from /metrics at once (every class, result and latency
 * bucket, its live gauges, and its slot), while another endpoint's counters carry on. A late event
 * about it (a circuit transition of a request that was in flight) is counted under `_other`, so
 * the deleted endpoint neither comes back nor takes a slot.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CircuitTransition } from "../../src/engine/breaker.js";
import { anEndpoint, post } from "../support/dlq.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { scrape } from "../support/metrics.js";
import { Receiver } from "../support/receiver.js";

let h: TestHookline;
let rx: Receiver;
beforeAll(async () => {
  h = await startHookline();
  rx = await Receiver.start();
});
afterAll(async () => {
  await h.stop();
  await rx.close();
});

const seriesOf = (s: Map<string, number>, endpointId: string) =>
  [...s.keys()].filter((k) => k.includes(`endpoint="${endpointId}"`));

describe("a deleted endpoint's metrics", () => {
  it("go when it is deleted; the others' stay", async () => {
    const gone = await anEndpoint(h, rx.url("/gone"));
    const kept = await anEndpoint(h, rx.url("/kept"));
    for (const ep of [gone, kept]) {
      await h.waitFor(deliveryOf(await post(h, ep.appId, {}), "succeeded"));
    }
    const keptAttempts = `hookline_delivery_attempts_total{endpoint="${kept.endpointId}",class="2xx"}`;
    let s = await scrape(h.url, h.token);
    expect(seriesOf(s, gone.endpointId).length).toBeGreaterThan(0);
    expect(s.get("hookline_metrics_tracked_endpoints")).toBe(2);

    const res = await h.api("DELETE", `/api/v1/app/${gone.appId}/endpoint/${gone.endpointId}`);
    expect(res.status).toBe(204);
    s = await scrape(h.url, h.token);
    expect(seriesOf(s, gone.endpointId)).toEqual([]);
    expect(s.get("hookline_metrics_tracked_endpoints")).toBe(1);
    expect(s.get(keptAttempts)).toBe(1);

    // A transition announced after the deletion comes back under _other, not as the endpoint.
    const transition: CircuitTransition = { from: "closed", to: "open", at: 0, reason: "late" };
    h.hookline.engine.events.emit({
      type: "circuit",
      endpointId: gone.endpointId,
      transition,
      nextProbeAt: 300_000,
    });
    s = await scrape(h.url, h.token);
    expect(seriesOf(s, gone.endpointId)).toEqual([]);
    expect(s.get('hookline_circuit_transitions_total{endpoint="_other",to="open"}')).toBe(1);
    expect(s.get("hookline_metrics_tracked_endpoints")).toBe(1);

    // Counting goes on for the endpoint that stays.
    await h.waitFor(deliveryOf(await post(h, kept.appId, {}), "succeeded"));
    s = await scrape(h.url, h.token);
    expect(s.get(keptAttempts)).toBe(2);
  });
});
