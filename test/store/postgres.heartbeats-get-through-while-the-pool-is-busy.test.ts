/**
 * A worker's heartbeat must not wait behind the store's other statements. In a process of role
 * `all` the API shares the store with the engine: requests stuck on a lock another session holds
 * (an operator's LOCK TABLE, a long migration of another application) can each hold one of the
 * pool's connections for the query timeout, and more of them queue for the next. A heartbeat
 * queued behind them failed (the pool's wait for a connection ran out), the worker stopped
 * sending once it had not been heard for half the dead-after time, and the other workers declared
 * it dead and sent what it had in flight again, though the database was there all along.
 */
import { expect, it } from "vitest";
import { PostgresStore } from "../../src/store/postgres/store.js";
import { useCleanup } from "../support/cleanup.js";
import {
  dropSchema,
  freshSchemaName,
  raceConnections,
  TEST_DATABASE_URL,
} from "../support/postgres.js";

const cleanup = useCleanup({ ignoreFailures: true });

const POOL_SIZE = 2;
/** Far more callers than connections: a heartbeat behind them all would wait for long. */
const BLOCKED_CALLERS = 30;

it("a heartbeat gets through while every pooled connection waits on a lock", async () => {
  const schema = freshSchemaName();
  const store = await PostgresStore.open({
    connectionString: TEST_DATABASE_URL,
    schema,
    poolSize: POOL_SIZE,
    queryTimeoutMs: 2_000,
  });
  cleanup.push(
    () => dropSchema(schema),
    () => store.close(),
  );
  const worker = { id: "wkr_busy_pool", role: "all", host: "test" };
  await store.coordination.register({ ...worker, now: Date.now() });

  const { admin, watch } = await raceConnections(cleanup);
  await admin.query("BEGIN");
  await admin.query(`LOCK TABLE ${schema}.event_types IN ACCESS EXCLUSIVE MODE`);
  cleanup.push(() => admin.query("ROLLBACK").then(() => undefined));
  // API requests reading event types, each asked again as soon as it fails.
  let stopped = false;
  cleanup.push(async () => void (stopped = true));
  const callers = Array.from({ length: BLOCKED_CALLERS }, async () => {
    while (!stopped) await store.findEventType("a.b").catch(() => undefined);
  });
  // Every pooled connection is waiting on the lock.
  await expect
    .poll(
      async () =>
        (
          await watch.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE application_name = $1 AND wait_event_type = 'Lock'`,
            [`hookline/${schema}`],
          )
        ).rows[0].n,
      { timeout: 10_000 },
    )
    .toBe(POOL_SIZE);

  const now = Date.now();
  const beat = await store.coordination.heartbeat({
    id: worker.id,
    now,
    deadBefore: now - 10_000,
    release: [],
    inTransit: [],
  });
  expect(beat.alive).toBe(true);
  stopped = true;
  await admin.query("ROLLBACK");
  await Promise.all(callers);
}, 60_000);
