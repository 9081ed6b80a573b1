/**
 * DeliveryEngines taking part in a fleet on a shared PostgreSQL store, in tests: their settings
 * (short heartbeats so hand-overs and reaping fit in a test, small batches), starting one, and
 * declaring one dead.
 */
import { systemClock } from "../../src/clock.js";
import { DEFAULT_ADAPTIVE } from "../../src/engine/adaptive-limit.js";
import { DEFAULT_BREAKER, type BreakerSettings } from "../../src/engine/breaker.js";
import { DeliveryEngine, type EngineSettings } from "../../src/engine/engine.js";
import { HttpSender } from "../../src/engine/sender.js";
import type { Reaped } from "../../src/store/coordination.js";
import type { Store } from "../../src/store/port.js";
import type { PostgresStore } from "../../src/store/postgres/store.js";
import type { Cleanup } from "./postgres.js";

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

/** A fleet worker on `store` (which may wrap a shared store), started; stopped by `cleanup`. */
export async function startFleetWorker(
  store: Store,
  settings: EngineSettings,
  cleanup: Cleanup,
): Promise<DeliveryEngine> {
  const sender = new HttpSender({ refusePrivateTargets: false });
  const engine = new DeliveryEngine({
    store,
    sender,
    clock: systemClock,
    random: () => 0.5,
    settings,
  });
  cleanup.push(
    () => sender.close(),
    () => engine.stop(),
  );
  await engine.start();
  return engine;
}

/**
 * Declares a running worker dead, as the others do once its heartbeat is old (its claims go back
 * to pending, its endpoints are free), and waits until it has noticed and joined again under a
 * new identity. Returns what the reaping freed.
 */
export async function declareDead(shared: PostgresStore, engine: DeliveryEngine): Promise<Reaped> {
  const before = engine.fleet!.id;
  const now = Date.now();
  // Every worker that has not beaten in the next hour: this one (the only one) included.
  const reaped = await shared.coordination!.reap(now, now + 3_600_000);
  while (engine.fleet!.id === before) await new Promise((r) => setTimeout(r, 5));
  return reaped;
}

/** Waits until the message's one delivery has succeeded and the engine holds nothing more. */
export async function untilDeliveredAndIdle(
  store: Store,
  engine: DeliveryEngine,
  messageId: string,
): Promise<void> {
  for (;;) {
    const [delivery] = await store.listDeliveries(messageId);
    if (delivery?.state === "succeeded" && engine.deliveryBudget().held === 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}
