/**
 * Two workers sharing PostgreSQL; B owns the one endpoint (limit 1) and holds three of its
 * deliveries, one answered and two waiting, when its heartbeats stop getting through for longer
 * than the dead-after time (a stalled heartbeat; a paused or starved process is the same). Another
 * worker, A, is woken for a new message of that endpoint before it has reaped B, and then B's
 * heartbeat lands after all: nobody has declared B dead, so B goes on with what it holds.
 *
 * A claim used to take an endpoint from any owner whose heartbeat was older than the dead-after
 * time, reaped or not. A then sent the new message while B, heard again and never told it had
 * lost the endpoint, sent the deliveries it held: two live workers sending to one endpoint, past
 * its limit, for as long as B's queue lasted. Only a reaping declares a worker dead, and the
 * endpoint must stay B's until then. The moment A's claim runs in, between B's heartbeat growing
 * old and A's next reaping, is held open by leaving A's reapings out until B has been heard.
 */
import { expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import { DeliveryEngine } from "../../src/engine/engine.js";
import { HttpSender } from "../../src/engine/sender.js";
import type { Store } from "../../src/store/port.js";
import type { PostgresStore } from "../../src/store/postgres/store.js";
import { accept, anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { useCleanup } from "../support/cleanup.js";
import { fleetWorkerSettings } from "../support/fleet-worker.js";
import { GatedReceiver } from "../support/gated-receiver.js";
import { withOverrides } from "../support/overrides.js";
import { adminQuery, aSharedStore, freshSchemaName } from "../support/postgres.js";

const DEAD_AFTER_MS = 1_000;

const cleanup = useCleanup();

/** A fleet worker whose requests carry an `x-worker` header with its name. */
async function worker(name: string, store: Store): Promise<DeliveryEngine> {
  const sender = new HttpSender({ refusePrivateTargets: false });
  const engine = new DeliveryEngine({
    store,
    sender: {
      send: (req) => sender.send({ ...req, headers: { ...req.headers, "x-worker": name } }),
      close: () => sender.close(),
    },
    clock: systemClock,
    random: () => 0.5,
    settings: fleetWorkerSettings({
      concurrencyLimit: 1,
      heartbeatMs: 100,
      deadAfterMs: DEAD_AFTER_MS,
    }),
  });
  cleanup.push(
    () => sender.close(),
    () => engine.stop(),
  );
  await engine.start();
  return engine;
}

/** B's store: its heartbeats wait, once `hold` is called, until `letGo`. */
function withHeldHeartbeats(shared: PostgresStore) {
  const c = shared.coordination;
  let gate: Promise<void> | null = null;
  let open!: () => void;
  let reachedIt!: () => void;
  const reached = new Promise<void>((r) => (reachedIt = r));
  const coordination = withOverrides(c, {
    heartbeat: async (req) => {
      if (gate) {
        reachedIt();
        await gate;
      }
      return c.heartbeat(req);
    },
  });
  return {
    store: withOverrides<Store>(shared, { coordination }),
    hold: () => (gate = new Promise<void>((r) => (open = r))),
    reached,
    letGo: () => {
      gate = null;
      open();
    },
  };
}

/** A's store: its reapings are left out while `off`; `claimsAfter` waits for its next claim. */
function withReapingsOff(shared: PostgresStore) {
  const c = shared.coordination;
  const state = { off: false };
  // Told what the first claim started after `nextClaim` took.
  let waiting: ((claimed: number) => void) | null = null;
  const finished = (claimed: number, watched: typeof waiting) => {
    if (watched && waiting === watched) {
      waiting = null;
      watched(claimed);
    }
  };
  const coordination = withOverrides(c, {
    reap: async (now, deadBefore) =>
      state.off ? { workers: [], endpointIds: [], deliveries: 0 } : c.reap(now, deadBefore),
  });
  const store = withOverrides<Store>(shared, {
    coordination,
    scanDue: async (req) => {
      const watched = waiting;
      const result = await shared.scanDue(req);
      finished(result.claimed.length, watched);
      return result;
    },
    claimDue: async (req) => {
      const watched = waiting;
      const claimed = await shared.claimDue(req);
      finished(claimed.length, watched);
      return claimed;
    },
  });
  return {
    store,
    state,
    /** Resolves with what the first claim started after this call took. */
    nextClaim: () => new Promise<number>((done) => (waiting = done)),
  };
}

it("a worker whose heartbeat is old but lands before anyone reaps it keeps its endpoint, and only it sends there", async () => {
  const schema = freshSchemaName();
  const shared = await aSharedStore(cleanup, schema);
  const rx = await GatedReceiver.start();
  cleanup.push(() => rx.close());
  const app = await shared.createApplication(anApplication());
  await shared.createEndpoint(anEndpoint(app.id, { url: rx.url() }));
  const messages: string[] = [];
  const post = async () => {
    const { message } = await accept(shared, app.id, { now: Date.now() });
    messages.push(message.id);
  };

  // B claims all three in its first claim: one goes out (held by the receiver), two wait.
  for (let i = 0; i < 3; i++) await post();
  const b = withHeldHeartbeats(shared);
  const workerB = await worker("b", b.store);
  await rx.arrivedFrom("b", 1);
  expect(workerB.deliveryBudget().held).toBe(3);
  const a = withReapingsOff(shared);
  const workerA = await worker("a", a.store);

  // B falls silent. Once it has been silent for half the dead-after time it starts nothing new;
  // its request is answered then, and the answer waits for B to be heard again.
  a.state.off = true;
  b.hold();
  await b.reached;
  await expect
    .poll(() => workerB.fleet!.silenced(Date.now()), { timeout: 10_000, interval: 20 })
    .toBe(true);
  rx.answerWaiting();

  // B's last heartbeat is older than the dead-after time, and nobody has reaped B. A hears of a
  // new message for B's endpoint and claims.
  const lastBeatOfB = async () => {
    const [row] = await adminQuery(`SELECT heartbeat_at FROM ${schema}.workers WHERE id = $1`, [
      workerB.fleet!.id,
    ]);
    return Number(row!.heartbeat_at);
  };
  const since = await lastBeatOfB();
  await expect
    .poll(() => Date.now() - since, { timeout: 10_000, interval: 20 })
    .toBeGreaterThan(DEAD_AFTER_MS + 50);
  await post();
  const claim = a.nextClaim();
  workerA.wake();
  // Whatever A claimed, it sends (and the receiver holds).
  if ((await claim) > 0) await rx.arrivedFrom("a", 1);

  // B is heard: it was not declared dead, so what it holds goes on.
  b.letGo();
  await rx.arrivedFrom("b", 2);
  expect(workerB.fleet!.silenced(Date.now())).toBe(false);
  a.state.off = false;

  rx.release();
  await expect
    .poll(
      async () => {
        const states = await Promise.all(messages.map((m) => shared.listDeliveries(m)));
        return states.map(([d]) => d?.state);
      },
      { timeout: 20_000, interval: 50 },
    )
    .toEqual(["succeeded", "succeeded", "succeeded", "succeeded"]);
  // One worker at a time sent to the endpoint, never more requests than its limit.
  expect(rx.maxOpen).toBe(1);
  expect(rx.ids).toHaveLength(4);
  expect(new Set(rx.ids).size).toBe(4);
}, 60_000);
