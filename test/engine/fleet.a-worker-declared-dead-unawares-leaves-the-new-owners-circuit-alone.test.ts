/**
 * One worker on a shared PostgreSQL sends to endpoint E, whose receiver holds the request. Then
 * the worker falls silent (the database's host vanishes from it; a `kill -STOP`, a frozen VM look
 * the same to the others), another worker declares it dead and takes E and the delivery over, and
 * the held request fails — enough to open E's circuit as the first worker counts — before the
 * first worker can learn that it was declared dead. Its answer is not the first worker's to judge:
 * once the database is back, nothing of E's circuit is saved and nothing of E is paused, so the
 * new owner's deliveries to E are not held for a probe five minutes away.
 */
import { expect, it } from "vitest";
import type { EngineEvent } from "../../src/engine/events.js";
import { accept, anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import {
  declaredDeadAndTakenOver,
  fleetWorkerSettings,
  startFleetWorker,
} from "../support/fleet-worker.js";
import { useCleanup } from "../support/cleanup.js";
import { GatedReceiver } from "../support/gated-receiver.js";
import { adminQuery, storesAroundAProxy } from "../support/postgres.js";

const DEAD_AFTER_MS = 1_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const cleanup = useCleanup({ ignoreFailures: true });

it("judges no answer that comes before it hears whether it was declared dead", async () => {
  // Statements held by the vanished host are answered once it is back, not given up on.
  const { schema, direct, proxied, proxy } = await storesAroundAProxy(cleanup, 20_000);
  const rx = await GatedReceiver.start(500);
  cleanup.push(() => rx.close());

  const app = await direct.createApplication(anApplication());
  const e = await direct.createEndpoint(anEndpoint(app.id, { url: rx.url() }));
  const other = "wkr_other";
  await direct.coordination!.register({ id: other, role: "worker", host: "test", now: Date.now() });
  // The other worker stays alive throughout, so the delivery stays its own.
  const beating = setInterval(() => {
    void adminQuery(`UPDATE ${schema}.workers SET heartbeat_at = $1 WHERE id = $2`, [
      Date.now(),
      other,
    ]);
  }, 50);
  cleanup.push(async () => clearInterval(beating));
  const settings = fleetWorkerSettings({
    concurrencyLimit: 5,
    heartbeatMs: 50,
    deadAfterMs: DEAD_AFTER_MS,
    breaker: { consecutiveFailures: 1 },
  });
  const engine = await startFleetWorker(proxied, settings, cleanup);
  const first = engine.fleet!.id;
  const circuits: EngineEvent[] = [];
  engine.events.on((ev) => {
    if (ev.type === "circuit") circuits.push(ev);
  });
  await accept(direct, app.id, { now: Date.now() });
  engine.wake();
  await rx.arrived(1);

  proxy.blackHole();
  // Silent for longer than the dead-after time: the other worker takes over, as its reaping and
  // its next claim would.
  await sleep(DEAD_AFTER_MS + 200);
  await declaredDeadAndTakenOver(schema, first, other, e.id);
  rx.release();
  await sleep(200); // the failed answer is in, the database still away from the worker
  proxy.forward();
  while (engine.fleet!.id === first) await sleep(5);
  while (engine.deliveryBudget().held > 0) await sleep(10);
  await sleep(200); // a circuit write sent before the worker noticed would have landed by now
  await engine.stop();

  expect(await direct.getCircuit(e.id)).toBeNull();
  expect(await direct.listCircuitTransitions(e.id, 10)).toEqual([]);
  expect(circuits).toEqual([]);
}, 30_000);
