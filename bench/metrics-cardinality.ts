/**
 * Memory and /metrics size of hookline's metrics with 10,000 endpoints, bounded (the default 500
 * slots) against one series set per endpoint. Feeds the metrics the events 10,000 endpoints'
 * deliveries would announce (three attempts each), then forces a collection and measures.
 *
 *   node --expose-gc --import tsx bench/metrics-cardinality.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemClock } from "../src/clock.js";
import type { EngineControl } from "../src/engine/control.js";
import { EngineEvents } from "../src/engine/events.js";
import { HooklineMetrics } from "../src/observability/metrics.js";
import { SqliteStore } from "../src/store/sqlite/store.js";

const ENDPOINTS = 10_000;

const engine: EngineControl = {
  wake: () => {},
  invalidateEndpoint: () => {},
  invalidateApplication: () => {},
  callerWaited: () => {},
  endpointStatus: () => ({
    limit: 100,
    effectiveLimit: 100,
    inFlight: 0,
    queued: 0,
    p99LatencyMs: null,
    circuit: { state: "closed", since: 0, reason: null, nextProbeAt: null, reopenCount: 0 },
  }),
  deliveryBudget: () => ({
    held: 0,
    limit: 4096,
    pace: Number.POSITIVE_INFINITY,
    oldestWaitingDueAt: null,
  }),
  intake: () => null,
};

function heap(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

async function measure(maxEndpoints: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "hookline-bench-"));
  const store = new SqliteStore({ path: join(dir, "db.sqlite"), synchronous: "normal" });
  const events = new EngineEvents();
  const before = heap();
  const metrics = new HooklineMetrics({
    store,
    engine,
    events,
    clock: systemClock,
    settings: { maxEndpoints, slotIdleMs: 10 * 60_000 },
  });
  for (let i = 0; i < ENDPOINTS; i++) {
    const endpointId = `ep_${String(i).padStart(26, "0")}`;
    for (const [n, status, state] of [
      [1, 503, "pending"],
      [2, 500, "pending"],
      [3, 200, "succeeded"],
    ] as const) {
      events.emit({
        type: "delivery",
        deliveryId: `dlv_${i}`,
        messageId: `msg_${i}`,
        endpointId,
        appId: "app_bench",
        state,
        nextAttemptAt: state === "pending" ? Date.now() : null,
        failureClass: null,
        retryAfter: null,
        attemptNumber: n,
        attempt: {
          id: `atmpt_${i}_${n}`,
          deliveryId: `dlv_${i}`,
          appId: "app_x",
          messageId: `msg_${i}`,
          endpointId,
          at: Date.now(),
          trigger: n === 1 ? "first" : "retry",
          url: "https://example.com",
          status,
          error: null,
          errorDetail: null,
          durationMs: 40,
          responseSnippet: "",
          outcome: status === 200 ? "success" : "retryable",
        },
      });
    }
  }
  const text = await metrics.render();
  const after = heap();
  const series = text.split("\n").filter((l) => l && !l.startsWith("#")).length;
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return `max ${String(maxEndpoints).padStart(6)} endpoints: ${String(series).padStart(7)} series, ${(text.length / 1e6).toFixed(2)} MB of text, heap +${((after - before) / 1e6).toFixed(1)} MB`;
}

console.log(await measure(500));
console.log(await measure(ENDPOINTS));
