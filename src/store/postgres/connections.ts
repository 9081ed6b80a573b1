/**
 * The PostgreSQL store's connections: how each connects (its schema on the search_path, its name,
 * keep-alive and the query timeout), the pool, the LISTEN connection, and closing them all within
 * a bound even when the server's host vanished.
 */
import { createRequire } from "node:module";
import type pg from "pg";
import { finishedWithin } from "../../finished-within.js";
import {
  DEFAULT_QUERY_TIMEOUT_MS,
  hearSessionEnd,
  SCHEMA_NAME,
  type PostgresOptions,
} from "./database.js";

/**
 * Silence on an idle connection after which the kernel starts probing the server (Node then
 * probes every second and gives up after ten unanswered: about 20 s in all). It catches a server
 * that vanished (no RST, no FIN) while a connection waits: idle in the pool, LISTENing, or waiting
 * for the answer to a statement the server has received.
 */
const KEEP_ALIVE_AFTER_MS = 10_000;

/**
 * The driver's JavaScript client, pool and type parsers, loaded as its own index loads them but
 * not through it: that index swaps in the native client (which needs pg-native, not installed)
 * whenever NODE_PG_FORCE_NATIVE is set, even to 0, and would fail every command at start.
 */
const fromDriver = createRequire(createRequire(import.meta.url).resolve("pg"));
const Client = fromDriver("./client.js") as typeof pg.Client;
const Pool = fromDriver("pg-pool") as new (config: pg.PoolConfig, client: typeof Client) => pg.Pool;
const types = fromDriver("pg-types") as typeof pg.types;

const INT8_OID = 20;

/**
 * BIGINT columns hold milliseconds and counts, far below 2^53: read them as numbers, like
 * better-sqlite3 does, so the two adapters return identical records. Set per pool, not globally.
 */
const TYPES = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID && format !== "binary"
      ? (value: string) => Number(value)
      : types.getTypeParser(oid, format)) as typeof types.getTypeParser,
};

/**
 * How long past the query timeout the server itself ends a statement: the client gives up first,
 * so a statement too slow is always answered as the timeout (StoreUnavailableError), never as a
 * cancellation.
 */
const SERVER_GRACE_MS = 1_000;

/** How every connection of a store connects: its schema on the search_path, its name, its types. */
function connectionConfig(options: PostgresOptions): pg.ClientConfig {
  if (!SCHEMA_NAME.test(options.schema)) {
    throw new Error(`invalid PostgreSQL schema name "${options.schema}"`);
  }
  // A connection string's own `options` would replace ours (pg gives the URL precedence), so its
  // settings are moved into ours rather than lost.
  let connectionString = options.connectionString;
  const url = new URL(connectionString);
  const theirs = url.searchParams.get("options");
  if (theirs !== null) {
    url.searchParams.delete("options");
    connectionString = url.toString();
  }
  const queryTimeoutMs = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  return {
    connectionString,
    // The server ends a statement a little after hookline stops waiting for it: a connection
    // given up on is closed, but a backend waiting for a lock never looks at its socket, and
    // would otherwise go on waiting, holding the locks it has, and then run the statement anyway.
    // A statement_timeout or idle_in_transaction_session_timeout of their own in the URL's options
    // comes later, so it wins; the float digits and the schema must be ours.
    options: [
      `-c statement_timeout=${queryTimeoutMs + SERVER_GRACE_MS}`,
      ...(options.idleInTransactionTimeoutMs
        ? [`-c idle_in_transaction_session_timeout=${options.idleInTransactionTimeoutMs}`]
        : []),
      ...(theirs ? [theirs] : []),
      // DOUBLE PRECISION values (alerts' values, replay rates) come back as text with the digits
      // this allows: a lower default of the database or role, or in the URL's options, would
      // round them. 3 is every digit on any server (from PostgreSQL 12, the shortest exact text).
      "-c extra_float_digits=3",
      `-c search_path=${options.schema}`,
    ].join(" "),
    // Tells an operator (pg_stat_activity) which hookline, by schema, a connection belongs to.
    application_name: `hookline/${options.schema}`,
    connectionTimeoutMillis: 10_000,
    // Without these, a statement sent to a server that vanished silently waits for the kernel to
    // give the connection up: about 15 minutes of retransmissions on Linux, and forever for a
    // connection that only waits. pg fails a statement unanswered after query_timeout with
    // "Query read timeout"; its connection must then be closed, not reused (see `tx`).
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEP_ALIVE_AFTER_MS,
    query_timeout: queryTimeoutMs,
    types: TYPES,
  };
}

/** Opens the pool; connections are made on demand, each with search_path set to the schema. */
export function openPool(options: PostgresOptions): pg.Pool {
  const pool = new Pool(
    { ...connectionConfig(options), max: options.poolSize, idleTimeoutMillis: 30_000 },
    Client,
  );
  // An idle connection that breaks (the server restarted) is dropped by the pool; the next query
  // opens a new one or fails with StoreUnavailableError. Without a listener it would crash us.
  pool.on("error", () => {});
  // The pool listens only to idle connections. One checked out (inside a transaction, between two
  // statements) whose server goes away emits "error" with no listener, which would end the
  // process; its next statement fails instead, as StoreUnavailableError, told why if the server
  // ended the session for idling in its transaction.
  pool.on("connect", (client) => hearSessionEnd(client as pg.Client));
  return pool;
}

/**
 * Ends a pool, waiting at most `ms` for `busy` work and for the connections in `open` (see
 * {@link trackConnections}) to close; those still open then are destroyed. Statements under way
 * end within the query timeout on their own, so this bound only cuts those exempt from it (a
 * migration) and goodbyes a vanished server never answers.
 */
export async function endPool(
  pool: pg.Pool,
  open: ReadonlySet<pg.ClientBase>,
  ms: number,
  busy: Promise<unknown>[] = [],
): Promise<void> {
  const ended = pool.end().catch(() => undefined);
  const closed = [...open].map((c) => new Promise((r) => c.once("end", r)));
  await finishedWithin(ms, Promise.all([...busy, ended, ...closed]));
  for (const c of open) destroy(c);
}

/** The pool's connections that are open, kept up to date as they connect and close. */
export function trackConnections(pool: pg.Pool): Set<pg.ClientBase> {
  const open = new Set<pg.ClientBase>();
  pool.on("connect", (client) => {
    open.add(client);
    client.once("end", () => open.delete(client));
  });
  return open;
}

/**
 * Ends a connection, waiting at most `ms` for the server to see it go: one whose server vanished
 * never answers the goodbye, so its socket is destroyed instead.
 */
export async function endWithin(client: pg.Client, ms: number): Promise<void> {
  const ended = client.end().catch(() => undefined);
  if (!(await finishedWithin(ms, ended))) destroy(client);
}

/** Closes a connection's socket at once; pg then fails whatever was waiting on it. */
export function destroy(client: pg.ClientBase): void {
  (
    client as unknown as { connection: { stream: { destroy(): void } } }
  ).connection.stream.destroy();
}

/** A connection outside the pool (LISTEN needs one of its own), configured like the pool's. */
export function newClient(options: PostgresOptions): pg.Client {
  return new Client(connectionConfig(options));
}
