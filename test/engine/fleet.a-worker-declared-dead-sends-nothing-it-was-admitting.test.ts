/**
 * One worker on a shared PostgreSQL, declared dead while a claimed delivery of endpoint E waits in
 * its admission (E's settings are being loaded). Reaping put the delivery back to pending, and
 * the worker, told at its next heartbeat, joins again under a new identity. When E's loading then
 * finishes, the old admission must not queue and send the delivery: it is another worker's to
 * send now (here, the worker's own new identity), and the receiver would get it twice.
 */
import { expect, it } from "vitest";
import { accept, anApplication, anEndpoint, MINUTE } from "../store/behaviour/fixtures.js";
import {
  declareDead,
  fleetWorkerSettings,
  startFleetWorker,
  untilDeliveredAndIdle,
} from "../support/fleet-worker.js";
import { holdFirstCall } from "../support/held-store-call.js";
import { useCleanup } from "../support/cleanup.js";
import { aSharedStore } from "../support/postgres.js";
import { Receiver } from "../support/receiver.js";

const cleanup = useCleanup();

it("sends nothing it was admitting when it was declared dead; the delivery goes out once", async () => {
  const store = await aSharedStore(cleanup);
  const rx = await Receiver.start(() => ({ status: 200 }));
  cleanup.push(() => rx.close());
  const app = await store.createApplication(anApplication());
  const e = await store.createEndpoint(anEndpoint(app.id, { url: rx.url("/e") }));
  const loadingE = holdFirstCall(store, "getEndpoint", (id) => id === e.id);
  // Nobody is declared dead by this worker's own clock: the test does that.
  const settings = fleetWorkerSettings({
    concurrencyLimit: 5,
    heartbeatMs: 50,
    deadAfterMs: 10 * MINUTE,
  });
  const engine = await startFleetWorker(loadingE.store, settings, cleanup);

  const { message } = await accept(store, app.id, { now: Date.now() });
  engine.wake();
  await loadingE.reached;
  const reaped = await declareDead(store, engine);
  expect(reaped.deliveries).toBe(1);

  loadingE.release();
  await untilDeliveredAndIdle(store, engine, message.id);
  expect(rx.on("/e")).toHaveLength(1);
}, 30_000);
