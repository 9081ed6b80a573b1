/**
 * How long the PostgreSQL store waits on its server. A statement waits at most the query timeout;
 * closing the store waits at most that long too, even for connections whose server's host vanished
 * (a loopback proxy in front of the shared server passes nothing either way, and never closes) and
 * for a migration. A migration's wait for another process's migration, and its own SQL, are not
 * cut by the query timeout: the first may rightly be long, the second rewrite a large table (its
 * other statements are: test/cli/serve.start-up-failures-name-the-setting-to-change.test.ts). Nor
 * is deleting an application or an endpoint, whose whole history goes in one transaction, with the
 * idempotency keys it forgets (an application's tokens may be thousands). The server ends a
 * statement hookline gave up on soon after, so that it holds no lock and does nothing later.
 */
import { expect, it } from "vitest";
import { StoreUnavailableError } from "../../src/errors.js";
import { MIGRATION_LOCK } from "../../src/store/postgres/migrate.js";
import { PostgresStore } from "../../src/store/postgres/store.js";
import { useCleanup } from "../support/cleanup.js";
import {
  BLOCKED_BY,
  dropSchema,
  freshSchemaName,
  raceConnections,
  TEST_DATABASE_URL,
  waitForPid,
} from "../support/postgres.js";
import { TcpProxy } from "../support/tcp-proxy.js";
import { anApplication, anEndpoint } from "./behaviour/fixtures.js";
import { within } from "../support/within.js";

const QUERY_TIMEOUT_MS = 1_000;
/** Many query timeouts: tells an end from a hang, not how fast the end is. */
const ENDS_WITHIN_MS = 15_000;

const cleanup = useCleanup({ ignoreFailures: true });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A store on a fresh schema, not yet migrated; dropped (and closed) by `cleanup`. */
function aStore(connectionString: string): { store: PostgresStore; schema: string } {
  const schema = freshSchemaName();
  const store = new PostgresStore({
    connectionString,
    schema,
    poolSize: 4,
    queryTimeoutMs: QUERY_TIMEOUT_MS,
  });
  cleanup.push(
    () => dropSchema(schema),
    () => store.close(),
  );
  return { store, schema };
}

it("a statement, the LISTEN connection and close all give up on a silent server", async () => {
  const url = new URL(TEST_DATABASE_URL);
  const proxy = await TcpProxy.start({ host: url.hostname, port: Number(url.port || 5432) });
  cleanup.push(() => proxy.cut());
  url.port = String(proxy.port);
  const { store } = aStore(url.toString());
  await store.ping();
  const unsubscribe = await store.coordination.subscribe(
    () => "wkr_listener",
    () => {},
    () => {},
  );

  proxy.blackHole();
  await expect(within(ENDS_WITHIN_MS, "ping", store.ping())).rejects.toBeInstanceOf(
    StoreUnavailableError,
  );
  // One more statement waiting as the store closes.
  const waiting = store.ping().catch((err: unknown) => err);
  await within(ENDS_WITHIN_MS, "unsubscribe", unsubscribe());
  await within(ENDS_WITHIN_MS, "close", store.close());
  expect(await within(ENDS_WITHIN_MS, "the statement", waiting)).toBeInstanceOf(
    StoreUnavailableError,
  );
}, 60_000);

it("a migration waits past the query timeout for another's, and close gives up on it", async () => {
  const { admin, watch } = await raceConnections(cleanup);
  const waitingOnLock = (schema: string) =>
    waitForPid(
      watch,
      "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
      [`hookline/${schema}`],
    );
  // Another process migrating the schema: it holds the lock every migration takes.
  const holdMigrationLock = async (schema: string) => {
    await admin.query("BEGIN");
    await admin.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [MIGRATION_LOCK, schema]);
  };

  const first = aStore(TEST_DATABASE_URL);
  await holdMigrationLock(first.schema);
  let settled = false;
  const migrated = first.store.ping().finally(() => (settled = true));
  await waitingOnLock(first.schema);
  await sleep(3 * QUERY_TIMEOUT_MS);
  expect(settled).toBe(false);
  await admin.query("COMMIT");
  await within(ENDS_WITHIN_MS, "the migration", migrated);

  const second = aStore(TEST_DATABASE_URL);
  await holdMigrationLock(second.schema);
  const stuck = second.store.ping().catch((err: unknown) => err);
  await waitingOnLock(second.schema);
  await within(ENDS_WITHIN_MS, "close", second.store.close());
  expect(await within(ENDS_WITHIN_MS, "the migration", stuck)).toBeInstanceOf(
    StoreUnavailableError,
  );
  await admin.query("ROLLBACK");
}, 60_000);

it("deleting an application (its whole history, in one transaction) waits past the query timeout", async () => {
  const { admin, watch } = await raceConnections(cleanup);
  const { store, schema } = aStore(TEST_DATABASE_URL);
  const app = await store.createApplication(anApplication());
  const ep = await store.createEndpoint(anEndpoint(app.id));
  // A long statement stands in for a large history: another transaction holds the messages table,
  // so the deletion waits on its lock for three query timeouts.
  await admin.query("BEGIN");
  await admin.query(`LOCK TABLE ${schema}.messages IN SHARE MODE`);
  let settled = false;
  const deleted = store.deleteApplication(app.id).finally(() => (settled = true));
  await waitForPid(
    watch,
    "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
    [`hookline/${schema}`],
  );
  await sleep(3 * QUERY_TIMEOUT_MS);
  expect(settled).toBe(false);
  await admin.query("COMMIT");
  await within(ENDS_WITHIN_MS, "the deletion", deleted);
  expect(await store.findApplication(app.id)).toBeNull();
  expect(await store.findEndpoint(app.id, ep.id)).toBeNull();
}, 60_000);

it("deleting an endpoint waits past the query timeout for the keys it forgets too", async () => {
  const { admin, watch } = await raceConnections(cleanup);
  const { store, schema } = aStore(TEST_DATABASE_URL);
  const app = await store.createApplication(anApplication());
  const ep = await store.createEndpoint(anEndpoint(app.id));
  const held = { scope: `admin:POST /api/v1/app/${app.id}/${ep.id}/`, key: "k", owner: "o" };
  await store.beginIdempotent({ ...held, fingerprint: "f", now: 0, lockMs: 1, ttlMs: 1e12 });
  // A long forget stands in for an application with many tokens: another transaction holds one of
  // the endpoint's keys, so forgetting them waits on its lock for three query timeouts.
  await admin.query("BEGIN");
  cleanup.push(async () => void (await admin.query("ROLLBACK")));
  await admin.query(`SELECT 1 FROM ${schema}.idempotency_keys WHERE key = 'k' FOR UPDATE`);
  let settled = false;
  const forget = { now: 0, scopes: () => ({ exact: [], prefixes: [held.scope] }) };
  const deleted = store.deleteEndpoint(app.id, ep.id, forget).finally(() => (settled = true));
  // Still waiting on the key three query timeouts on; a deletion cut short ends the wait at once.
  await Promise.race([
    waitForPid(
      watch,
      `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'
        AND query LIKE 'DELETE FROM idempotency_keys%'
        AND query_start < clock_timestamp() - $2 * interval '1 ms'`,
      [`hookline/${schema}`, 3 * QUERY_TIMEOUT_MS],
    ),
    deleted.then(() => {
      throw new Error("the deletion ended while a key it forgets was held");
    }),
  ]);
  expect(settled).toBe(false);
  await admin.query("COMMIT");
  await within(ENDS_WITHIN_MS, "the deletion", deleted);
  expect(await store.findEndpoint(app.id, ep.id)).toBeNull();
  expect(await admin.query(`SELECT 1 FROM ${schema}.idempotency_keys`)).toMatchObject({
    rowCount: 0,
  });
}, 60_000);

it("a statement given up on is ended by the server too: it holds no lock and never runs later", async () => {
  const { admin, watch, adminPid } = await raceConnections(cleanup);
  const { store, schema } = aStore(TEST_DATABASE_URL);
  const app = await store.createApplication(anApplication());
  const ep = await store.createEndpoint(anEndpoint(app.id, { description: "before" }));
  // Another transaction holds the endpoint's row: the update waits on its lock.
  await admin.query("BEGIN");
  await admin.query(`SELECT 1 FROM ${schema}.endpoints WHERE id = $1 FOR UPDATE`, [ep.id]);
  const update = store.updateEndpoint({ ...ep, description: "after" });
  await expect(within(ENDS_WITHIN_MS, "the update", update)).rejects.toBeInstanceOf(
    StoreUnavailableError,
  );
  // A backend waiting on a lock does not notice its connection closed. Left to itself it would
  // wait on, then write the update hookline answered as failed, once the lock was free.
  await within(ENDS_WITHIN_MS, "the server to end the statement", untilNoneBlockedBy(adminPid));
  await admin.query("COMMIT");
  expect((await store.getEndpoint(ep.id))!.description).toBe("before");

  async function untilNoneBlockedBy(pid: number): Promise<void> {
    while ((await watch.query(BLOCKED_BY, [pid])).rows.length > 0) await sleep(20);
  }
}, 60_000);
