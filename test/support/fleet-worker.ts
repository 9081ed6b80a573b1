/**
 * Settings for a DeliveryEngine taking part in a fleet on a shared PostgreSQL store, in tests:
 * short heartbeats so hand-overs and reaping fit in a test, small batches.
 */
import { DEFAULT_ADAPTIVE } from "../../src/engine/adaptive-limit.js";
import { DEFAULT_BREAKER, type BreakerSettings } from "../../src/engine/breaker.js";
import type { EngineSettings } from "../../src/engine/engine.js";

export function fleetWorkerSettings(options: {
  concurrencyLimit: number;
  heartbeatMs: number;
  deadAfterMs: number;
  breaker?: Partial<BreakerSettings>;
}): EngineSettings {
  return {
    policyDefaults: {
      retry: { preset: "default" },
      concurrencyLimit: options.concurrencyLimit,
      timeoutMs: 5_000,
    },
    breaker: { ...DEFAULT_BREAKER, ...options.breaker },
    adaptive: DEFAULT_ADAPTIVE,
    batchSize: 64,
    maxClaimed: 256,
    leaseMs: 60_000,
    shutdownTimeoutMs: 2_000,
    fleet: {
      heartbeatMs: options.heartbeatMs,
      deadAfterMs: options.deadAfterMs,
      idleReleaseMs: 60_000,
      role: "worker",
      host: "test",
    },
  };
}
