/**
 * Worker A owns two busy endpoints; worker B joins, and A hands one of them (E) over, as it owns
 * more than its share. B dies (it stops beating, as after a SIGKILL), either once it has taken E
 * (reaping B frees it) or before it has claimed it (E has no owner at all, and reaping B frees
 * nothing). A is the only worker left, and the one that hands over does not take an endpoint back
 * for 5 s: so when A declares B dead, that quiet must not hold E back, in either case. With a
 * dead-after time under 5 s, E waited for the quiet to end, past the dead-after time scaling.md
 * promises: about 4 s after the reaping.
 */
import { describe, expect, it } from "vitest";
import { useCleanup } from "../support/cleanup.js";
import { fleetWorkerSettings, startFleetWorker } from "../support/fleet-worker.js";
import { adminQuery, aSharedStore, freshSchemaName } from "../support/postgres.js";
import { Receiver } from "../support/receiver.js";
import { accept, anApplication, anEndpoint } from "../store/behaviour/fixtures.js";

const HEARTBEAT_MS = 100;
const DEAD_AFTER_MS = 1_000;
const B = "wkr_b";

describe("an endpoint handed to a worker that then dies", () => {
  const cleanup = useCleanup();

  /** A hands E to B, which takes it (or not) and dies; A must send to E soon after the reaping. */
  async function handedOverThenDies(bClaimsFirst: boolean): Promise<void> {
    const schema = freshSchemaName();
    const store = await aSharedStore(cleanup, schema);
    const coordination = store.coordination!;
    const rx = await Receiver.start(() => ({ status: 200, delayMs: 20 }));
    cleanup.push(() => rx.close());
    const app = await store.createApplication(anApplication());
    const endpoints = new Map<string, string>();
    for (const path of ["/one", "/two"]) {
      const e = await store.createEndpoint(anEndpoint(app.id, { url: rx.url(path) }));
      endpoints.set(e.id, path);
    }
    // A backlog that lasts the whole test at two requests at a time.
    for (let i = 0; i < 600; i++) await accept(store, app.id, { now: Date.now() });

    const settings = fleetWorkerSettings({
      concurrencyLimit: 2,
      heartbeatMs: HEARTBEAT_MS,
      deadAfterMs: DEAD_AFTER_MS,
    });
    const a = await startFleetWorker(store, settings, cleanup);
    await expect.poll(() => new Set(rx.requests.map((r) => r.path)).size).toBe(2);

    // B joins and beats: A owns two of two endpoints between two live workers, one too many.
    await coordination.register({ id: B, role: "worker", host: "test", now: Date.now() });
    let beating = true;
    const beats = (async () => {
      while (beating) {
        const now = Date.now();
        await coordination.heartbeat({
          id: B,
          now,
          deadBefore: now - DEAD_AFTER_MS,
          release: [],
          inTransit: [],
        });
        await new Promise((r) => setTimeout(r, HEARTBEAT_MS));
      }
    })();
    cleanup.push(async () => {
      beating = false;
      await beats;
    });
    const unowned = async () => {
      const rows = await adminQuery(
        `SELECT id FROM ${schema}.endpoints e WHERE NOT EXISTS
          (SELECT 1 FROM ${schema}.endpoint_owners o WHERE o.endpoint_id = e.id)`,
      );
      return rows.map((r) => String(r.id));
    };
    await expect.poll(unowned, { timeout: 20 * HEARTBEAT_MS, interval: 10 }).toHaveLength(1);
    const [e] = await unowned();

    if (bClaimsFirst) {
      // B takes E with a claim of its own.
      const now = Date.now();
      const claimed = await store.claimDue({
        now,
        limit: 2,
        excludeEndpoints: [],
        leaseUntil: now + 60_000,
        endpointId: e!,
        worker: { id: B, deadBefore: now - DEAD_AFTER_MS, onContended: () => {} },
      });
      expect(claimed).toHaveLength(2);
    }
    // B dies: no heartbeat from here on.
    beating = false;
    await beats;
    const diedAt = Date.now();

    // A declares B dead (its row goes) and sends to E again within a few heartbeats of that,
    // its own quiet after the hand-over notwithstanding.
    const alive = async () =>
      (await adminQuery(`SELECT 1 FROM ${schema}.workers WHERE id = $1`, [B])).length;
    await expect.poll(alive, { timeout: 10 * DEAD_AFTER_MS, interval: 10 }).toBe(0);
    const path = endpoints.get(e!)!;
    const sentAfter = () => rx.requests.filter((r) => r.path === path && r.at > diedAt).length;
    await expect.poll(sentAfter, { timeout: 20 * HEARTBEAT_MS, interval: 10 }).toBeGreaterThan(0);
    expect(a.fleet!.owned.has(e!)).toBe(true);
  }

  it("is taken back by the worker that handed it over as soon as it declares the other dead", async () => {
    await handedOverThenDies(true);
  }, 30_000);

  it("is taken back so too when the other died before claiming it, owned by nobody", async () => {
    await handedOverThenDies(false);
  }, 30_000);
});
