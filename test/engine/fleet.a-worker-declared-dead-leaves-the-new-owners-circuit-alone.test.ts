/**
 * One worker on a shared PostgreSQL sends to endpoint E, whose receiver holds the request. Another
 * worker declares it dead and takes E and the delivery over; the first worker notices and joins
 * again under a new identity. Then the held request fails, enough to open E's circuit as the first
 * worker counts. That request cannot be called back, but its answer is no longer the first
 * worker's to act on: E's circuit is its new owner's, so nothing is saved and nothing is paused,
 * and the store keeps no outcome of it, so none is announced (delivery events feed the metrics
 * and the delivery log, which would count an attempt the new owner makes again).
 */
import { expect, it } from "vitest";
import { MINUTE } from "../store/behaviour/fixtures.js";
import { aRequestOutWhenTakenOver, fleetWorkerSettings } from "../support/fleet-worker.js";
import { useCleanup } from "../support/cleanup.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const cleanup = useCleanup();

it("changes nothing of the endpoint's circuit with a request it sent before", async () => {
  const settings = fleetWorkerSettings({
    concurrencyLimit: 5,
    heartbeatMs: 50,
    deadAfterMs: 10 * MINUTE,
    breaker: { consecutiveFailures: 1 },
  });
  const { store, engine, rx, endpointId, first } = await aRequestOutWhenTakenOver(
    cleanup,
    500,
    settings,
  );
  while (engine.fleet!.id === first) await sleep(5);

  const announced: string[] = [];
  engine.events.on((ev) => {
    if (ev.type === "delivery") announced.push(ev.deliveryId);
  });
  rx.release();
  while (engine.deliveryBudget().held > 0) await sleep(10);
  await engine.stop(); // the outcome writer's last batch is committed, and announced, by now
  expect(await store.getCircuit(endpointId)).toBeNull();
  expect(await store.listCircuitTransitions(endpointId, 10)).toEqual([]);
  expect(announced).toEqual([]);
}, 30_000);
