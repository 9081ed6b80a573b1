/**
 * Ten thousand endpoints each receive a real delivery; /metrics still holds per-endpoint series
 * for at most HOOKLINE_METRICS_MAX_ENDPOINTS of them, everything else under endpoint="_other",
 * and the totals still add up to every attempt.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { scrape } from "../support/metrics.js";
import { Receiver } from "../support/receiver.js";

const ENDPOINTS = 10_000;
const SLOTS = 200;

let h: TestHookline;
let rx: Receiver;
beforeAll(async () => {
  h = await startHookline({ env: { HOOKLINE_METRICS_MAX_ENDPOINTS: String(SLOTS) } });
  rx = await Receiver.start(() => ({ status: 200 }));
});
afterAll(async () => {
  await h.stop();
  await rx.close();
});

describe("10,000 endpoints", () => {
  it("keep per-endpoint series bounded while totals count everything", async () => {
    const { store } = h.hookline;
    const app = await store.createApplication(anApplication({ name: "many" }));
    for (let i = 0; i < ENDPOINTS; i++) {
      await store.createEndpoint(anEndpoint(app.id, { url: rx.url(`/ep/${i}`) }));
    }
    // Every attempt is counted as it is committed: on a busy machine some of 10,000 first
    // connections fail and are retried, and the totals must count those attempts too.
    let done = 0;
    let attemptsMade = 0;
    const delivered = new Promise<void>((resolve) => {
      const off = h.hookline.engine.events.on((e) => {
        if (e.type !== "delivery") return;
        if (e.attempt) attemptsMade++;
        if (e.state === "succeeded" && ++done === ENDPOINTS) {
          off();
          resolve();
        }
      });
    });
    await h.svix.message.create(app.id, { eventType: "fan.out", payload: {} });
    await delivered;

    const text = await (
      await fetch(`${h.url}/metrics`, { headers: { authorization: `Bearer ${h.token}` } })
    ).text();
    const s = await scrape(h.url, h.token);
    const endpointsIn = (family: string) =>
      new Set(
        [...s.keys()]
          .filter((k) => k.startsWith(`${family}{`))
          .map((k) => /endpoint="([^"]+)"/.exec(k)?.[1])
          .filter((e) => e !== undefined),
      );
    for (const family of [
      "hookline_delivery_attempts_total",
      "hookline_first_attempts_total",
      "hookline_receiver_ack_seconds_bucket",
      "hookline_endpoint_concurrency_limit",
      "hookline_circuit_state",
    ]) {
      const labels = endpointsIn(family);
      expect(labels.size, family).toBeLessThanOrEqual(SLOTS + 1);
    }
    expect(endpointsIn("hookline_delivery_attempts_total").has("_other")).toBe(true);
    expect(s.get("hookline_metrics_tracked_endpoints")).toBe(SLOTS);
    const attempts = [...s.entries()]
      .filter(([k]) => k.startsWith("hookline_delivery_attempts_total{"))
      .reduce((sum, [, v]) => sum + v, 0);
    expect(attempts).toBe(attemptsMade);
    expect(attempts).toBeGreaterThanOrEqual(ENDPOINTS);
    expect(s.get('hookline_delivery_attempts_total{endpoint="_other",class="2xx"}')).toBe(
      ENDPOINTS - SLOTS,
    );
    const series = text.split("\n").filter((l) => l && !l.startsWith("#")).length;
    // Memory is measured by bench/metrics-cardinality.ts (with a forced collection), not here.
    expect(series).toBeLessThan(SLOTS * 40);
  }, 300_000);
});
