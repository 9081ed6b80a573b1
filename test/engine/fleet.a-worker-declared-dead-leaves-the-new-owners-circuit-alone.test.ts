/**
 * One worker on a shared PostgreSQL sends to endpoint E, whose receiver holds the request. Another
 * worker declares it dead and takes E and the delivery over; the first worker notices and joins
 * again under a new identity. Then the held request fails, enough to open E's circuit as the first
 * worker counts. That request cannot be called back, but its answer is no longer the first
 * worker's to act on: E's circuit is its new owner's, so nothing is saved and nothing is paused,
 * and the store keeps no outcome of it, so none is announced (delivery events feed the metrics
 * and the delivery log, which would count an attempt the new owner makes again).
 */
import { afterEach, expect, it } from "vitest";
import { accept, anApplication, anEndpoint, MINUTE } from "../store/behaviour/fixtures.js";
import { fleetWorkerSettings, startFleetWorker } from "../support/fleet-worker.js";
import { GatedReceiver } from "../support/gated-receiver.js";
import { adminQuery, aSharedStore, freshSchemaName, type Cleanup } from "../support/postgres.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const cleanup: Cleanup = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

it("changes nothing of the endpoint's circuit with a request it sent before", async () => {
  const schema = freshSchemaName();
  const store = await aSharedStore(cleanup, schema);
  const rx = await GatedReceiver.start(500);
  cleanup.push(() => rx.close());
  const app = await store.createApplication(anApplication());
  const e = await store.createEndpoint(anEndpoint(app.id, { url: rx.url() }));
  const other = "wkr_other";
  await store.coordination!.register({ id: other, role: "worker", host: "test", now: Date.now() });
  const settings = fleetWorkerSettings({
    concurrencyLimit: 5,
    heartbeatMs: 50,
    deadAfterMs: 10 * MINUTE,
    breaker: { consecutiveFailures: 1 },
  });
  const engine = await startFleetWorker(store, settings, cleanup);
  const first = engine.fleet!.id;

  await accept(store, app.id, { now: Date.now() });
  engine.wake();
  await rx.arrived(1);
  // The other worker reaps this one and, in the same moment, takes E and its delivery.
  await adminQuery(
    `WITH dead AS (DELETE FROM ${schema}.workers WHERE id = $1),
      owner AS (UPDATE ${schema}.endpoint_owners SET worker_id = $2, since = $3
        WHERE endpoint_id = $4)
    UPDATE ${schema}.deliveries SET claimed_by = $2 WHERE claimed_by = $1`,
    [first, other, Date.now(), e.id],
  );
  while (engine.fleet!.id === first) await sleep(5);

  const announced: string[] = [];
  engine.events.on((ev) => {
    if (ev.type === "delivery") announced.push(ev.deliveryId);
  });
  rx.release();
  while (engine.deliveryBudget().held > 0) await sleep(10);
  await engine.stop(); // the outcome writer's last batch is committed, and announced, by now
  expect(await store.getCircuit(e.id)).toBeNull();
  expect(await store.listCircuitTransitions(e.id, 10)).toEqual([]);
  expect(announced).toEqual([]);
}, 30_000);
