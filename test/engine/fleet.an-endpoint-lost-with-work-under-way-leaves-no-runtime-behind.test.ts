/**
 * A fleet worker loses endpoint E while it still has something of E under way, and joins again
 * under a new identity, E and its delivery taken over by another worker:
 *
 * - a request is out when E's settings change (its runtime is marked to reload before its next
 *   dispatch) and the worker is declared dead; the answer comes after it joined again, and the
 *   forgotten runtime is dispatched one last time (it has nothing left to send);
 * - a claimed delivery of E waits in its admission while E's settings are read when the worker
 *   is declared dead; the read comes back after it joined again.
 *
 * Either went through the loader claims use, which finds or makes the endpoint's runtime: it made
 * a new one and kept it, a stray for an endpoint another worker owned, with E's circuit as stored
 * at that moment, until it was let go of as idle. When the worker took E again meanwhile, it sent
 * with the stray's circuit instead of the one the owner had left in the store: a circuit the
 * owner opened was closed here, and every delivery held for the probe went out at once instead
 * of one probe.
 */
import { expect, it } from "vitest";
import type { DeliveryEngine } from "../../src/engine/engine.js";
import type { Store } from "../../src/store/port.js";
import {
  accept,
  anApplication,
  anEndpoint,
  MINUTE,
  ROOMY_LADDER,
} from "../store/behaviour/fixtures.js";
import { useCleanup } from "../support/cleanup.js";
import {
  declaredDeadAndTakenOver,
  fleetWorkerSettings,
  startFleetWorker,
} from "../support/fleet-worker.js";
import { GatedReceiver } from "../support/gated-receiver.js";
import { holdFirstCall } from "../support/held-store-call.js";
import { withOverrides } from "../support/overrides.js";
import { adminQuery, aSharedStore, freshSchemaName } from "../support/postgres.js";

const cleanup = useCleanup();

const OTHER = "wkr_other";

/**
 * The store with its reads of endpoints, applications and circuits watched: `settled` waits
 * until a read of `endpointId` has ended since `mark`, and every read that followed it too.
 */
function watchingLoads(store: Store) {
  const pending = new Set<Promise<unknown>>();
  const endpointReadsEnded: string[] = [];
  const watch =
    <A extends unknown[], R>(
      read: (...args: A) => Promise<R>,
      endpointOf?: (...args: A) => string,
    ) =>
    (...args: A): Promise<R> => {
      const p = read(...args);
      pending.add(p);
      const done = () => {
        pending.delete(p);
        if (endpointOf) endpointReadsEnded.push(endpointOf(...args));
      };
      p.then(done, done);
      return p;
    };
  const watched = withOverrides<Store>(store, {
    getEndpoint: watch(store.getEndpoint.bind(store), (id) => id),
    findApplication: watch(store.findApplication.bind(store)),
    getCircuit: watch(store.getCircuit.bind(store)),
  });
  return {
    store: watched,
    mark: () => endpointReadsEnded.length,
    settled: async (endpointId: string, mark: number) => {
      while (!endpointReadsEnded.slice(mark).includes(endpointId)) {
        await new Promise((r) => setTimeout(r, 5));
      }
      // What a load does after a read comes in the turns right after it: once no read is under
      // way a turn later, the load has ended.
      for (;;) {
        await Promise.allSettled([...pending]);
        await new Promise((r) => setImmediate(r));
        if (pending.size === 0) return;
      }
    },
  };
}

/** A schema with one application and its endpoint E (sent to `rx`), and the other worker. */
async function aFleetWithOneEndpoint(rx: GatedReceiver) {
  const schema = freshSchemaName();
  const shared = await aSharedStore(cleanup, schema);
  const app = await shared.createApplication(anApplication());
  const e = await shared.createEndpoint(anEndpoint(app.id, { url: rx.url() }));
  await shared.coordination.register({ id: OTHER, role: "worker", host: "test", now: Date.now() });
  return { schema, shared, appId: app.id, endpointId: e.id };
}

/** Nobody is declared dead by the worker's own clock: the test does that. */
const settings = fleetWorkerSettings({
  concurrencyLimit: 5,
  heartbeatMs: 50,
  deadAfterMs: 10 * MINUTE,
});

/** Waits until the worker, declared dead as `first`, has joined again under a new identity. */
async function joinedAgain(schema: string, engine: DeliveryEngine, first: string): Promise<void> {
  await expect.poll(() => engine.fleet!.id).not.toBe(first);
  const registered = async () =>
    (await adminQuery(`SELECT id FROM ${schema}.workers WHERE id = $1`, [engine.fleet!.id])).length;
  await expect.poll(registered).toBe(1);
}

/**
 * E's owner opens its circuit, holding E's three new deliveries for the probe a moment later,
 * marks the message it took over delivered, and leaves. The worker takes E when the probe falls
 * due: it must send one probe with the circuit the owner left, the others waiting for its answer.
 */
async function takenAgainWithItsCircuitOpen(
  f: Awaited<ReturnType<typeof aFleetWithOneEndpoint>>,
  engine: DeliveryEngine,
  rx: GatedReceiver,
  firstMessage: string,
): Promise<void> {
  const { schema, shared, appId, endpointId } = f;
  const ids: string[] = [];
  for (let i = 0; i < 3; i++)
    ids.push((await accept(shared, appId, { now: Date.now() })).message.id);
  const now = Date.now();
  const probeAt = now + 300;
  await shared.saveCircuit(
    endpointId,
    { state: "open", since: now, reason: "failing", nextProbeAt: probeAt, reopenCount: 0 },
    { from: "closed", to: "open", at: now, reason: "failing" },
  );
  await shared.pauseEndpoint(endpointId, probeAt, ROOMY_LADDER);
  await adminQuery(
    `UPDATE ${schema}.deliveries SET state = 'succeeded', claimed_by = NULL WHERE message_id = $1`,
    [firstMessage],
  );
  await shared.coordination.unregister(OTHER);

  // One probe goes out; the others wait, put back, for its answer.
  const inFlight = () => engine.endpointStatus(endpointId)?.inFlight ?? 0;
  await expect.poll(inFlight, { timeout: 20_000 }).toBeGreaterThan(0);
  expect(engine.endpointStatus(endpointId)?.circuit.state).toBe("open");
  expect(inFlight()).toBe(1);

  rx.release();
  await expect
    .poll(async () => {
      const rows = await Promise.all(ids.map((id) => shared.listDeliveries(id)));
      return rows.map(([d]) => d?.state);
    })
    .toEqual(["succeeded", "succeeded", "succeeded"]);
}

it("keeps no runtime of an endpoint it lost while a request was out, and loads it afresh when it takes it again", async () => {
  const rx = await GatedReceiver.start();
  cleanup.push(() => rx.close());
  const f = await aFleetWithOneEndpoint(rx);
  const loads = watchingLoads(f.shared);
  const engine = await startFleetWorker(loads.store, settings, cleanup);
  const first = engine.fleet!.id;

  const { message } = await accept(f.shared, f.appId, { now: Date.now() });
  engine.wake();
  await rx.arrived(1);
  // E's settings change (the signal marks its runtime to reload), then the worker is declared
  // dead and the other takes E and the delivery.
  engine.invalidateEndpoint(f.endpointId);
  await declaredDeadAndTakenOver(f.schema, first, OTHER, f.endpointId);
  await joinedAgain(f.schema, engine, first);

  // The answer comes; what is left of E's old runtime is dispatched, and reloaded.
  const mark = loads.mark();
  rx.answerWaiting();
  await loads.settled(f.endpointId, mark);
  expect(engine.endpointStatus(f.endpointId)).toBeNull();

  await takenAgainWithItsCircuitOpen(f, engine, rx, message.id);
}, 60_000);

it("keeps no runtime of an endpoint it lost while admitting its delivery, and loads it afresh when it takes it again", async () => {
  const rx = await GatedReceiver.start();
  cleanup.push(() => rx.close());
  const f = await aFleetWithOneEndpoint(rx);
  const loadingE = holdFirstCall(f.shared, "getEndpoint", (id) => id === f.endpointId);
  const loads = watchingLoads(loadingE.store);
  const engine = await startFleetWorker(loads.store, settings, cleanup);
  const first = engine.fleet!.id;

  const { message } = await accept(f.shared, f.appId, { now: Date.now() });
  const mark = loads.mark();
  engine.wake();
  await loadingE.reached;
  await declaredDeadAndTakenOver(f.schema, first, OTHER, f.endpointId);
  await joinedAgain(f.schema, engine, first);

  // E's settings come back to the admission of a delivery that is another's now.
  loadingE.release();
  await loads.settled(f.endpointId, mark);
  expect(engine.endpointStatus(f.endpointId)).toBeNull();
  expect(rx.ids).toEqual([]);

  await takenAgainWithItsCircuitOpen(f, engine, rx, message.id);
}, 60_000);
