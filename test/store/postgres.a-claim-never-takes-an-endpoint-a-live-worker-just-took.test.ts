/**
 * Two claims of one endpoint nobody owns (its owner died and was reaped), on PostgreSQL: worker B
 * joins and takes it while worker A's claim is running, its snapshot taken before B existed. A's
 * claim must not take the endpoint from B (it cannot see B's row, which would look like an owner
 * reaped, only B's fresh ownership row): B keeps it, and A claims none of its deliveries. The
 * order is forced with B's transaction held open on an admin connection.
 */
import { expect, it } from "vitest";
import type { ClaimedDelivery } from "../../src/store/port.js";
import type { PostgresStore } from "../../src/store/postgres/store.js";
import { accept, HOUR, MINUTE, SECOND, seedApp, T0 } from "./behaviour/fixtures.js";
import { useCleanup } from "../support/cleanup.js";
import { aStoreToRace, BLOCKED_BY, waitForPid } from "../support/postgres.js";

const NOW = T0 + HOUR;

const cleanup = useCleanup();

function claimAs(
  store: PostgresStore,
  worker: string,
  endpointId?: string,
): Promise<ClaimedDelivery[]> {
  return store.claimDue({
    now: NOW,
    limit: 100,
    excludeEndpoints: [],
    leaseUntil: NOW + MINUTE,
    endpointId,
    worker: { id: worker, deadBefore: NOW - 10 * SECOND, onContended: () => {} },
  });
}

for (const via of ["the due index", "the endpoint's own index"] as const) {
  it(`a claim through ${via} leaves an endpoint to the worker that took it meanwhile`, async () => {
    const { schema, store, admin, watch, adminPid } = await aStoreToRace(cleanup);
    const { app, endpoints } = await seedApp(store, [{}]);
    const endpointId = endpoints[0]!.id;
    const c = store.coordination!;
    await c.register({ id: "wkr_dead", role: "worker", host: "test", now: NOW - MINUTE });
    await c.register({ id: "wkr_a", role: "worker", host: "test", now: NOW });
    for (let i = 0; i < 2; i++) await accept(store, app.id, { now: T0 + i });
    await admin.query(
      `INSERT INTO ${schema}.endpoint_owners (endpoint_id, worker_id, since) VALUES ($1, $2, $3)`,
      [endpointId, "wkr_dead", NOW - MINUTE],
    );
    expect((await c.reap(NOW, NOW - 10 * SECOND)).endpointIds).toEqual([endpointId]);

    // B joins and takes the endpoint, not yet committed.
    await admin.query("BEGIN");
    await admin.query(
      `INSERT INTO ${schema}.workers (id, role, host, started_at, heartbeat_at)
       VALUES ('wkr_b', 'worker', 'test', $1, $1)`,
      [NOW],
    );
    await admin.query(
      `INSERT INTO ${schema}.endpoint_owners (endpoint_id, worker_id, since) VALUES ($1, 'wkr_b', $2)`,
      [endpointId, NOW],
    );
    const claiming = claimAs(store, "wkr_a", via === "the due index" ? undefined : endpointId);
    await waitForPid(watch, BLOCKED_BY, [adminPid]);
    await admin.query("COMMIT");

    expect(await claiming).toEqual([]);
    const owner = await admin.query(
      `SELECT worker_id FROM ${schema}.endpoint_owners WHERE endpoint_id = $1`,
      [endpointId],
    );
    expect(owner.rows).toEqual([{ worker_id: "wkr_b" }]);
  });
}
