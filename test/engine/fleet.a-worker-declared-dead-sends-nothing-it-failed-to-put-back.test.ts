/**
 * One worker on a shared PostgreSQL. Endpoint E's circuit is open, so a claimed delivery of E is
 * put back until the probe; while that write is under way the worker is declared dead (the
 * delivery goes back to pending) and joins again under a new identity; then the write fails, and
 * the delivery returns to E's queue, where the engine keeps deliveries it could not put back.
 * By then the probe is due: the old claim must not go out as the probe. Its new claim, by the
 * worker's new identity, is the one request the receiver gets.
 */
import { expect, it } from "vitest";
import { StoreUnavailableError } from "../../src/errors.js";
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

/**
 * When the probe falls due: after the worker's start and first dispatch (which must find the
 * circuit still waiting, so that it puts the delivery back), before the failed write. Generous,
 * for a slow machine: the test waits for it.
 */
const PROBE_IN_MS = 2_000;

const cleanup = useCleanup();

it("does not send a delivery it failed to put back after it was declared dead", async () => {
  const store = await aSharedStore(cleanup);
  const rx = await Receiver.start(() => ({ status: 200 }));
  cleanup.push(() => rx.close());
  const app = await store.createApplication(anApplication());
  const e = await store.createEndpoint(anEndpoint(app.id, { url: rx.url("/e") }));
  // Accepted due now, then E's circuit opens (saved by an earlier owner), its probe soon.
  const { message } = await accept(store, app.id, { now: Date.now() });
  const opened = Date.now();
  const probeAt = opened + PROBE_IN_MS;
  await store.saveCircuit(
    e.id,
    { state: "open", since: opened, reason: "test", nextProbeAt: probeAt, reopenCount: 0 },
    { from: "closed", to: "open", at: opened, reason: "test" },
  );
  const puttingBack = holdFirstCall(store, "releaseDeliveries");
  const settings = fleetWorkerSettings({
    concurrencyLimit: 5,
    heartbeatMs: 50,
    deadAfterMs: 10 * MINUTE,
  });
  const engine = await startFleetWorker(puttingBack.store, settings, cleanup);

  await puttingBack.reached;
  const reaped = await declareDead(store, engine);
  expect(reaped.deliveries).toBe(1);
  // The probe is due when the failed write hands the delivery back to the queue.
  while (Date.now() <= probeAt) await new Promise((r) => setTimeout(r, 10));

  puttingBack.release(new StoreUnavailableError("the database went away"));
  await untilDeliveredAndIdle(store, engine, message.id);
  expect(rx.on("/e")).toHaveLength(1);
}, 30_000);
