/**
 * The PostgreSQL the tests use, and fresh schemas in it. Tests that need it fail (never skip) when
 * it cannot be reached: .ci/run starts it.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { PostgresStore } from "../../src/store/postgres/store.js";
import type { Cleanup } from "./cleanup.js";
import { TcpProxy } from "./tcp-proxy.js";

/** The test database: HOOKLINE_TEST_DATABASE_URL, or the local server's `test` database. */
export const TEST_DATABASE_URL =
  process.env.HOOKLINE_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** A schema name no other test uses. */
export function freshSchemaName(): string {
  return `hl_test_${randomBytes(6).toString("hex")}`;
}

/** A schema name no other test uses, whatever a test makes under it dropped by `cleanup`. */
export function aSchemaName(cleanup: Cleanup): string {
  const schema = freshSchemaName();
  cleanup.push(() => dropSchema(schema));
  return schema;
}

/** Whether the test database has a schema of that name. */
export async function schemaExists(schema: string): Promise<boolean> {
  return (await adminQuery("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema])).length > 0;
}

/** Runs one statement on a connection of its own. */
export async function adminQuery(
  text: string,
  values: unknown[] = [],
): Promise<Record<string, unknown>[]> {
  return queryIn(TEST_DATABASE_URL, text, values);
}

/**
 * How long a file's cleanup may take when it drops a database of its own ({@link aDatabase}):
 * PostgreSQL's DROP DATABASE waits for a checkpoint, and with the suite's tests writing beside it
 * one took 30 s to sync tens of thousands of files (the suite's whole hook timeout).
 */
export const DROPS_A_DATABASE = { timeoutMs: 180_000 };

/**
 * A database of its own on the test server, made with `encoding` (and the C locale, which every
 * encoding takes), named `<prefix>_<random>` and dropped by `cleanup` (made with
 * `useCleanup(DROPS_A_DATABASE)`); returns its URL.
 */
export async function aDatabase(
  cleanup: Cleanup,
  prefix: string,
  encoding: string,
): Promise<string> {
  const name = `${prefix}_${randomBytes(4).toString("hex")}`;
  await adminQuery(
    `CREATE DATABASE ${name} ENCODING '${encoding}' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0`,
  );
  // FORCE: a connection hookline left in its pool's last moments would otherwise stop the drop.
  cleanup.push(() => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).then(() => {}));
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs one statement on a connection of its own to the database at `url`. */
export async function queryIn(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Drops a schema made by a test, with everything in it. */
export async function dropSchema(schema: string): Promise<void> {
  await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
}

/** A store on a fresh schema, closed and dropped by `cleanup`. */
export async function aSharedStore(
  cleanup: Cleanup,
  schema = freshSchemaName(),
  connectionString = TEST_DATABASE_URL,
): Promise<PostgresStore> {
  const store = await PostgresStore.open({
    connectionString,
    schema,
    poolSize: 4,
  });
  cleanup.push(
    () => dropSchema(schema),
    () => store.close(),
  );
  return store;
}

/**
 * One schema seen two ways, as two workers of a fleet would see it when one loses the network:
 * `direct`, and `proxied` through a loopback proxy whose host can be cut or silenced. Closed, cut
 * and dropped by `cleanup`.
 */
export async function storesAroundAProxy(
  cleanup: Cleanup,
  queryTimeoutMs: number,
): Promise<{ schema: string; direct: PostgresStore; proxied: PostgresStore; proxy: TcpProxy }> {
  const schema = freshSchemaName();
  cleanup.push(() => dropSchema(schema));
  const direct = await PostgresStore.open({
    connectionString: TEST_DATABASE_URL,
    schema,
    poolSize: 4,
  });
  cleanup.push(() => direct.close());
  const pgUrl = new URL(TEST_DATABASE_URL);
  const proxy = await TcpProxy.start({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) });
  cleanup.push(() => proxy.cut());
  pgUrl.port = String(proxy.port);
  const proxied = await PostgresStore.open({
    connectionString: pgUrl.toString(),
    schema,
    poolSize: 4,
    queryTimeoutMs,
  });
  cleanup.push(() => proxied.close());
  return { schema, direct, proxied, proxy };
}

/**
 * Polls `query` until it returns a row, for up to 20 s (a session's statement can take that long
 * to show on a machine running two test files at once); resolves with the first row's `pid`. On a
 * connection of its own outside any transaction: pg_stat_activity is read once per transaction.
 */
export async function waitForPid(
  watch: pg.Client,
  query: string,
  values: unknown[],
): Promise<number> {
  const until = Date.now() + 20_000;
  while (Date.now() < until) {
    const { rows } = await watch.query<{ pid: number }>(query, values);
    if (rows[0]) return rows[0].pid;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`nothing matched: ${query}`);
}

/** The backends that `$1` (a backend's pid) blocks. */
export const BLOCKED_BY =
  "SELECT pid FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))";

/**
 * Two plain connections for a test that forces a race: `admin` holds row locks (its backend is
 * `adminPid`), `watch` sees who waits on whom (see {@link waitForPid}). Closed by `cleanup`.
 */
export async function raceConnections(
  cleanup: Cleanup,
): Promise<{ admin: pg.Client; watch: pg.Client; adminPid: number }> {
  const [admin, watch] = [new pg.Client(TEST_DATABASE_URL), new pg.Client(TEST_DATABASE_URL)];
  for (const c of [admin, watch]) {
    await c.connect();
    cleanup.push(() => c.end());
  }
  const { rows } = await admin.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
  return { admin, watch, adminPid: rows[0]!.pid };
}

/**
 * Where a test that forces a race on PostgreSQL starts: a store on a fresh schema (as
 * {@link aSharedStore} makes it) and the two plain connections of {@link raceConnections}; all
 * closed, and the schema dropped, by `cleanup`.
 */
export async function aStoreToRace(cleanup: Cleanup): Promise<{
  schema: string;
  store: PostgresStore;
  admin: pg.Client;
  watch: pg.Client;
  adminPid: number;
}> {
  const schema = freshSchemaName();
  const store = await aSharedStore(cleanup, schema);
  return { schema, store, ...(await raceConnections(cleanup)) };
}
