/**
 * A claim by worker W runs on PostgreSQL while another worker reaps W (W paused long enough to be
 * declared dead, and has not noticed). The claim read the workers table before the reap deleted
 * W's row, then waited for a lock (on a free endpoint it takes, which another worker was taking
 * in a transaction that then failed) while the reap ran. Whatever the order, once the reap has
 * committed no delivery may stay claimed by W, nor any endpoint owned by it: W has no row, so a
 * claim it made is either put back by that reap or never made, not left to the next reap (a
 * heartbeat later) while W sends it. The order is forced with a lock held on an admin connection.
 */
import { expect, it } from "vitest";
import type { PostgresStore } from "../../src/store/postgres/store.js";
import { accept, HOUR, MINUTE, SECOND, seedApp, T0 } from "./behaviour/fixtures.js";
import { useCleanup } from "../support/cleanup.js";
import { aStoreToRace, BLOCKED_BY, waitForPid } from "../support/postgres.js";

const NOW = T0 + HOUR;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const cleanup = useCleanup();

async function join(store: PostgresStore, id: string, heartbeatAt: number): Promise<void> {
  await store.coordination!.register({ id, role: "worker", host: "test", now: heartbeatAt });
}

it("a claim that overlaps the reap of its own worker leaves it nothing claimed", async () => {
  const { schema, store, admin, watch, adminPid } = await aStoreToRace(cleanup);
  const { app, endpoints } = await seedApp(store, [{}, {}]);
  const [mine, taken] = endpoints.map((e) => e.id) as [string, string];
  // W paused a minute ago; X is alive. W owns one endpoint; the other is nobody's.
  await join(store, "wkr_w", NOW - MINUTE);
  await join(store, "wkr_x", NOW);
  await admin.query(
    `INSERT INTO ${schema}.endpoint_owners (endpoint_id, worker_id, since) VALUES ($1, 'wkr_w', $2)`,
    [mine, NOW - MINUTE],
  );
  await accept(store, app.id, { now: T0 });

  // X is taking the free endpoint, not yet committed; W's claim reaches it and waits.
  await admin.query("BEGIN");
  await admin.query(
    `INSERT INTO ${schema}.endpoint_owners (endpoint_id, worker_id, since) VALUES ($1, 'wkr_x', $2)`,
    [taken, NOW],
  );
  const claiming = store.claimDue({
    now: NOW,
    limit: 100,
    excludeEndpoints: [],
    leaseUntil: NOW + MINUTE,
    worker: { id: "wkr_w", deadBefore: NOW - 10 * SECOND, onContended: () => {} },
  });
  const claimPid = await waitForPid(watch, BLOCKED_BY, [adminPid]);
  // The reap runs meanwhile: it either commits, or waits for the claim.
  let reapDone = false;
  const reaping = store.coordination!.reap(NOW, NOW - 30 * SECOND);
  void reaping.then(() => (reapDone = true));
  while (!reapDone && (await watch.query(BLOCKED_BY, [claimPid])).rows.length === 0) {
    await sleep(10);
  }
  // X's take fails: the endpoint is W's claim's to take.
  await admin.query("ROLLBACK");
  await claiming;
  expect((await reaping).workers).toEqual(["wkr_w"]);

  const stranded = await admin.query(
    `SELECT id FROM ${schema}.deliveries WHERE state = 'inflight'
       AND NOT EXISTS (SELECT 1 FROM ${schema}.workers w WHERE w.id = claimed_by)`,
  );
  expect(stranded.rows).toEqual([]);
  const owned = await admin.query(
    `SELECT endpoint_id FROM ${schema}.endpoint_owners o
       WHERE NOT EXISTS (SELECT 1 FROM ${schema}.workers w WHERE w.id = o.worker_id)`,
  );
  expect(owned.rows).toEqual([]);
});
