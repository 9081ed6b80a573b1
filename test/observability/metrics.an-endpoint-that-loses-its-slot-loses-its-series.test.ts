/**
 * Per-endpoint series are bounded by slots (endpoint-slots.ts). When an endpoint idle long enough
 * gives its slot to another, every series it had goes (each class, each result, its latency
 * histogram), while the totals keep what it counted under `_other` from then on.
 */
import { describe, expect, it } from "vitest";
import type { Attempt } from "../../src/domain/types.js";
import { EngineEvents, type EngineEvent } from "../../src/engine/events.js";
import { HooklineMetrics } from "../../src/observability/metrics.js";

function delivered(endpointId: string, status: number): EngineEvent {
  const ok = status >= 200 && status < 300;
  const attempt: Attempt = {
    id: "atmpt_1",
    deliveryId: "dlv_1",
    appId: "app_1",
    messageId: "msg_1",
    endpointId,
    at: 0,
    trigger: "first",
    url: "https://receiver.example/hook",
    status,
    error: null,
    errorDetail: null,
    durationMs: 12,
    responseSnippet: "",
    outcome: ok ? "success" : "permanent",
  };
  return {
    type: "delivery",
    deliveryId: "dlv_1",
    messageId: "msg_1",
    endpointId,
    appId: "app_1",
    state: ok ? "succeeded" : "dead",
    nextAttemptAt: null,
    attempt,
    failureClass: ok ? null : "permanent",
    retryAfter: null,
    attemptNumber: 1,
  };
}

describe("an endpoint that loses its metrics slot", () => {
  it("loses every series of its own; another endpoint's stay", async () => {
    let now = 0;
    const metrics = new HooklineMetrics({
      store: null as never,
      engine: null as never,
      events: new EngineEvents(),
      clock: { now: () => now, setTimer: () => ({ id: 0 }), clearTimer: () => {} },
      settings: { maxEndpoints: 1, slotIdleMs: 1_000 },
    });
    // The series kept per endpoint as events are counted (the gauges are read from the engine
    // and the store at each scrape instead).
    const families = [
      "hookline_delivery_attempts_total",
      "hookline_first_attempts_total",
      "hookline_retries_scheduled_total",
      "hookline_deliveries_ended_total",
      "hookline_retry_after_total",
      "hookline_receiver_ack_seconds",
      "hookline_circuit_transitions_total",
    ];
    const linesOf = async (endpoint: string) => {
      const text = await Promise.all(
        families.map((f) => metrics.registry.getSingleMetricAsString(f)),
      );
      return text
        .join("\n")
        .split("\n")
        .filter((l) => l.startsWith("hookline_") && l.includes(`endpoint="${endpoint}"`));
    };

    metrics.observe(delivered("ep_a", 200));
    metrics.observe(delivered("ep_a", 410));
    const a = await linesOf("ep_a");
    expect(
      a.some((l) => l.startsWith('hookline_delivery_attempts_total{endpoint="ep_a",class="2xx"}')),
    ).toBe(true);
    expect(
      a.some((l) =>
        l.startsWith('hookline_delivery_attempts_total{endpoint="ep_a",class="4xx_permanent"}'),
      ),
    ).toBe(true);
    expect(a.some((l) => l.startsWith("hookline_receiver_ack_seconds_bucket"))).toBe(true);

    // Within the idle time the slot stays with ep_a, and ep_b is counted under _other.
    now = 500;
    metrics.observe(delivered("ep_b", 200));
    expect(await linesOf("ep_b")).toEqual([]);
    expect((await linesOf("_other")).length).toBeGreaterThan(0);

    // Past it, ep_b takes the slot: ep_a's series, of every metric and label, are gone.
    now = 2_000;
    metrics.observe(delivered("ep_b", 200));
    expect(await linesOf("ep_a")).toEqual([]);
    expect((await linesOf("ep_b")).length).toBeGreaterThan(0);
  });
});
