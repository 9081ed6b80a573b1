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
import { accept, anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { GatedReceiver } from "./gated-receiver.js";
import type { Cleanup } from "./cleanup.js";
import { adminQuery, aSharedStore, freshSchemaName } from "./postgres.js";

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

/** What {@link aRequestOutWhenTakenOver} leaves to the test. */
export interface TakenOver {
  store: PostgresStore;
  engine: DeliveryEngine;
  /** The receiver, holding the request until released. */
  rx: GatedReceiver;
  endpointId: string;
  messageId: string;
  /** The identity the worker was declared dead under. */
  first: string;
}

/**
 * A fleet worker, started on a fresh schema, has one request out to endpoint E, held by E's
 * receiver (which answers `status` once released), when another worker declares it dead and, in
 * the same moment, takes E and the delivery over, as its reaping and next claim would. The worker
 * learns it only at its next heartbeat.
 */
export async function aRequestOutWhenTakenOver(
  cleanup: Cleanup,
  status: number,
  settings: EngineSettings,
): Promise<TakenOver> {
  const schema = freshSchemaName();
  const store = await aSharedStore(cleanup, schema);
  const rx = await GatedReceiver.start(status);
  cleanup.push(() => rx.close());
  const app = await store.createApplication(anApplication());
  const e = await store.createEndpoint(anEndpoint(app.id, { url: rx.url() }));
  const other = "wkr_other";
  await store.coordination!.register({ id: other, role: "worker", host: "test", now: Date.now() });
  const engine = await startFleetWorker(store, settings, cleanup);
  const first = engine.fleet!.id;

  const { message } = await accept(store, app.id, { now: Date.now() });
  engine.wake();
  await rx.arrived(1);
  await declaredDeadAndTakenOver(schema, first, other, e.id);
  return { store, engine, rx, endpointId: e.id, messageId: message.id, first };
}

/**
 * What the fleet does to a worker declared dead, done in one statement: its row is gone, `other`
 * owns the endpoint, and holds the deliveries it had claimed.
 */
export async function declaredDeadAndTakenOver(
  schema: string,
  dead: string,
  other: string,
  endpointId: string,
): Promise<void> {
  await adminQuery(
    `WITH dead AS (DELETE FROM ${schema}.workers WHERE id = $1),
      owner AS (UPDATE ${schema}.endpoint_owners SET worker_id = $2, since = $3
        WHERE endpoint_id = $4)
    UPDATE ${schema}.deliveries SET claimed_by = $2 WHERE claimed_by = $1`,
    [dead, other, Date.now(), endpointId],
  );
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
