/**
 * The PostgreSQL store's way of running SQL: its options, statements (prepared or not),
 * transactions through `tx`, and driver errors turned into hookline's errors. The connections
 * themselves are opened and closed in connections.ts.
 */
import type pg from "pg";
import type { PoolClient, QueryConfig, QueryResultRow } from "pg";
import { MAX_TIMEOUT_MS } from "../../clock.js";
import { ConflictError, StoreUnavailableError } from "../../errors.js";
import type { FieldCipher } from "../../security/cipher.js";
import type { StoreLimits } from "../port.js";

export interface PostgresOptions {
  /** A postgres:// URL (DATABASE_URL). */
  connectionString: string;
  /** Schema holding hookline's tables; created by the first migration if missing. */
  schema: string;
  /** Connections the pool may open at once. */
  poolSize: number;
  /**
   * Prepare the statements declared with `prepared` (the default). Off: they are sent as text,
   * for a pooler that hands each transaction another server connection without carrying prepared
   * statements over (PgBouncer in transaction mode before 1.21, or with max_prepared_statements 0).
   */
  preparedStatements?: boolean;
  /** Limits enforced as it writes; defaults to DEFAULT_STORE_LIMITS. */
  limits?: Partial<StoreLimits>;
  /** Seals secrets and payloads at rest; without one, they are stored as plaintext. */
  cipher?: FieldCipher;
  /**
   * How long one statement may wait for its answer before its connection is given up (closed,
   * never reused) and the call fails as StoreUnavailableError; also how long `close` waits for
   * connections still busy. Defaults to DEFAULT_QUERY_TIMEOUT_MS.
   */
  queryTimeoutMs?: number;
  /**
   * Refuse a schema hookline has not made, rather than create it: for tools that work on data
   * already there (`hookline keys rotate`), where a new, empty schema means the wrong setting.
   */
  existingOnly?: boolean;
  /**
   * Has the server end a transaction of these connections left idle this long (mid-transaction,
   * between two statements), closing the session, rolling it back and freeing its locks. For a
   * process that may hang or whose machine may go down mid-transaction (`serve`, `keys rotate`,
   * `store copy` all set it to the query timeout): the server hears of a client gone without
   * closing its connection only when TCP keep-alive gives up on it, hours later, and its locks
   * held everything that needs those rows (a migration's, every hookline started on the schema).
   * None of hookline's transactions waits on anything but its own statements between two of them,
   * and a statement waiting for a lock (a migration's for another's) is not idle; the LISTEN
   * connection holds no transaction. Unset: no such bound.
   */
  idleInTransactionTimeoutMs?: number;
}

/** The default of `PostgresOptions.queryTimeoutMs` (HOOKLINE_PG_QUERY_TIMEOUT_MS). */
export const DEFAULT_QUERY_TIMEOUT_MS = 30_000;

/** The longest delay a Node timer takes: a statement bound that is, in practice, none. */
const NO_CLIENT_BOUND_MS = MAX_TIMEOUT_MS;

/** One row as pg returns it (BIGINT already a number: see `TYPES` in connections.ts). */
export type Row = Record<string, unknown>;

/** What runs SQL: the pool (autocommit) or one client inside a transaction. */
export interface Conn {
  query<R extends QueryResultRow = Row>(
    config: QueryConfig,
  ): Promise<{ rows: R[]; rowCount: number | null }>;
}

/**
 * A statement each connection parses and plans once, then only binds and runs. For the statements
 * run per delivery: sent as plain text, parsing and planning them again on every call took about a
 * fifth of PostgreSQL's CPU per delivery (measured with the store alone). Only statements that
 * name their result columns are prepared: a migration that adds a column then never changes a
 * prepared statement's result, which PostgreSQL refuses ("cached plan must not change result
 * type") on every connection of a process started before it.
 */
export interface Prepared {
  readonly name: string;
  readonly text: string;
}

/** SQL to run: plain text, parsed on every call, or a prepared statement. */
export type Sql = string | Prepared;

/** Declares a prepared statement; `name` must be unique in hookline's schema. */
export function prepared(name: string, text: string): Prepared {
  return { name: `hookline_${name}`, text };
}

/** The same statements, to be sent as text instead (see `PostgresOptions.preparedStatements`). */
export function asText<T extends Record<string, Sql>>(statements: T): { [K in keyof T]: Sql } {
  const out: Record<string, Sql> = {};
  for (const [key, sql] of Object.entries(statements)) {
    out[key] = typeof sql === "string" ? sql : sql.text;
  }
  return out as { [K in keyof T]: Sql };
}

function query(sql: Sql, values: unknown[]): QueryConfig {
  return typeof sql === "string"
    ? { text: sql, values }
    : { name: sql.name, text: sql.text, values };
}

/**
 * The same statement without the query timeout, for statements that may rightly run for long
 * (migrations, which may wait for another process's migration or rewrite a large table). A
 * vanished server is still noticed while one runs, by keep-alive.
 */
export function unbounded(config: QueryConfig): QueryConfig {
  return { ...config, query_timeout: NO_CLIENT_BOUND_MS } as QueryConfig;
}

/**
 * Lifts the server's bound on statements (connections.ts) for the rest of the transaction. That
 * bound was also what ended a statement whose process had gone: a server checks its client's
 * connection only when it has something to send, so a hookline killed (or stopped) during a
 * migration or a whole-history deletion left the statement running to its end, holding its
 * locks (the migration's lock too, which the restarted hookline waited behind), only to roll
 * back. So the server is also asked to look at the connection every second while the statement
 * runs, and end it once the connection is closed (PostgreSQL 14 on; older servers have no such
 * check, nor do servers on a platform whose kernel cannot report a closed connection, Windows for
 * one, which refuse the setting: the error is caught, so there the statement runs to its end as
 * before, rather than every migration and deletion failing).
 */
export const NO_SERVER_BOUND = `DO $$
BEGIN
  PERFORM set_config('statement_timeout', '0', true);
  IF current_setting('server_version_num')::int >= 140000 THEN
    BEGIN
      PERFORM set_config('client_connection_check_interval', '1000', true);
    EXCEPTION WHEN OTHERS THEN NULL;
    END;
  END IF;
END $$`;

/**
 * Within a transaction, the same connection with every statement {@link unbounded}, and the
 * server's bound lifted for the rest of the transaction: for deleting an application or an
 * endpoint, whose every message, delivery and attempt go in one transaction (all or nothing),
 * which for a large history can rightly take longer than the query timeout: cut there, it would
 * roll back every time it was asked again.
 */
export function withoutTimeout(c: Conn): Conn {
  let lifted: Promise<unknown> | null = null;
  return {
    query: async (config) => {
      lifted ??= c.query(unbounded({ text: NO_SERVER_BOUND }));
      await lifted;
      return c.query(unbounded(config));
    },
  };
}

/** Every row of a query. */
export async function all(c: Conn, sql: Sql, values: unknown[] = []): Promise<Row[]> {
  return (await c.query(query(sql, values))).rows;
}

/** The first row of a query, if any. */
export async function one(c: Conn, sql: Sql, values: unknown[] = []): Promise<Row | undefined> {
  return (await c.query(query(sql, values))).rows[0];
}

/** Runs a statement; returns how many rows it changed. */
export async function exec(c: Conn, sql: Sql, values: unknown[] = []): Promise<number> {
  return (await c.query(query(sql, values))).rowCount ?? 0;
}

/** Builds a parameter list for SQL put together at run time: `add` returns the placeholder. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** A schema name usable unquoted: lower-case letters, digits and underscores. */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** PostgreSQL error codes (SQLSTATE) that mean the transaction may simply be run again. */
const RETRYABLE = new Set(["40001", "40P01"]);

/**
 * Whether a transaction whose COMMIT answer was lost is in the database after all, asked on a
 * connection of the pool (not the broken one). See {@link tx}.
 */
export type LandedCheck<T> = (result: T, pool: pg.Pool) => Promise<boolean>;

/**
 * Runs `fn` in one transaction on one pooled connection: BEGIN, then COMMIT, or ROLLBACK if it
 * throws. A deadlock or serialization failure runs it again (a few times), so `fn` must build its
 * result inside and have no effects outside the database. `snapshot` makes it a read-only
 * transaction whose statements all see the database as of its first one.
 *
 * A COMMIT that fails because the connection broke, or whose answer did not come within the query
 * timeout, may have been committed or not. With `landed`, the server process that ran the
 * transaction is ended (if it still runs) and, once it is gone, `landed` tells which: if the
 * writes are there, `fn`'s result is answered; if it cannot tell (the database is still away), the
 * original error is thrown.
 */
export async function tx<T>(
  pool: pg.Pool,
  fn: (c: PoolClient) => Promise<T>,
  mode: "write" | "snapshot" = "write",
  landed?: LandedCheck<T>,
): Promise<T> {
  const begin = mode === "snapshot" ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "BEGIN";
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    let broken: Error | undefined;
    let lost: { result: T; err: unknown; pid: number | null } | undefined;
    try {
      await client.query(begin);
      const result = await fn(client);
      try {
        await client.query("COMMIT");
      } catch (err) {
        // pg keeps the server process id of each connection (from its BackendKeyData message).
        const pid = (client as unknown as { processID?: number | null }).processID ?? null;
        if (landed && isUnavailable(err)) lost = { result, err, pid };
        throw err;
      }
      return result;
    } catch (caught) {
      const err = await endedIdle(client, caught);
      // A statement that timed out may still be answered later, so the connection's state is
      // unknown: it is closed rather than rolled back (a ROLLBACK would only queue behind the
      // unanswered statement), and the server rolls back what was not committed when it sees
      // the connection go, or when `commitLanded` ends its process.
      if (isTimeout(caught)) broken = caught as Error;
      else await client.query("ROLLBACK").catch((rollbackErr: Error) => (broken = rollbackErr));
      if (!lost) {
        if (attempt < 3 && RETRYABLE.has(sqlState(err))) continue;
        throw err;
      }
      lost.err = err;
    } finally {
      // A connection that could not roll back, or timed out, is destroyed rather than reused.
      client.release(broken);
    }
    // Asked only once the broken connection is back in the pool's hands, so a pool of one works.
    if (await commitLanded(pool, lost.pid, () => landed!(lost.result, pool))) return lost.result;
    throw lost.err;
  }
}

/**
 * After a lost COMMIT answer: ends the server process that ran the transaction (its COMMIT either
 * completed or never will: commit is not interruptible halfway), waits for it to be gone, then
 * asks `check`. False whenever any of that fails.
 */
async function commitLanded(
  pool: pg.Pool,
  pid: number | null,
  check: () => Promise<boolean>,
): Promise<boolean> {
  if (pid === null) return false;
  try {
    await pool.query("SELECT pg_terminate_backend($1)", [pid]);
    for (let i = 0; ; i++) {
      const { rowCount } = await pool.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [pid]);
      if (!rowCount) break;
      if (i >= 50) return false;
      await new Promise((r) => setTimeout(r, 20));
    }
    return await check();
  } catch {
    return false;
  }
}

/**
 * Runs one statement on its own (no transaction around it: the statement is atomic), again a few
 * times after a deadlock or serialization failure, as `tx` does for a transaction.
 */
export async function retried<T>(statement: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await statement();
    } catch (err) {
      if (attempt < 3 && RETRYABLE.has(sqlState(err))) continue;
      throw err;
    }
  }
}

function sqlState(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" ? code : "";
}

/** SQLSTATE of a session the server ended, its transaction idle past the idle timeout. */
const IDLE_IN_TRANSACTION_ENDED = "25P03";

/** The server's word that it ended a connection's session for idling in a transaction. */
const endedForIdling = new WeakMap<pg.ClientBase, Error>();

/**
 * Keeps what the server said as it ended `client`'s session, if it ended it for idling in a
 * transaction (see {@link endedIdle}).
 */
function noteSessionEnd(client: pg.ClientBase, err: Error): void {
  if (isEndedIdle(err)) endedForIdling.set(client, err);
}

/**
 * Listens on `client` for the server ending its session, for {@link endedIdle} to tell. A lost
 * connection fails the next statement instead of ending the process. The server's word reaches
 * the client's "error" only between statements: a process stopped (or paused) as it waited on one
 * fails that statement by its query timeout once it goes on, before it reads the answer and the
 * word behind it, which pg then hands to the abandoned statement; the connection's own
 * "errorMessage" hears it either way.
 */
export function hearSessionEnd(client: pg.Client): void {
  client.on("error", (err) => noteSessionEnd(client, err));
  client.connection.on("errorMessage", (err: Error) => noteSessionEnd(client, err));
}

/** Whether `err` is the server's word that it ended the session for idling in a transaction. */
export function isEndedIdle(err: unknown): boolean {
  return sqlState(err) === IDLE_IN_TRANSACTION_ENDED;
}

/**
 * What to report of a transaction's statement on `client` that failed with `err`: the server's
 * word, if it had ended the session for being left idle in the transaction (the process was
 * stopped, or its machine paused, past `idleInTransactionTimeoutMs`), rather than what the
 * statement ran into next. Continued, the process fails the statement it was waiting on by its
 * query timeout before it reads the server's word, or sends the next one into a connection that
 * is gone: either says nothing of why, nor that the transaction is no longer there. The word is
 * read with the socket's pending data, which is given a turn first; only on this failure path.
 */
export async function endedIdle(client: pg.ClientBase, err: unknown): Promise<unknown> {
  if (isEndedIdle(err) || !isUnavailable(err)) return err;
  for (let turn = 0; turn < 2; turn++) await new Promise((r) => setImmediate(r));
  return endedForIdling.get(client) ?? err;
}

/** Whether pg gave up waiting for a statement's answer (`query_timeout`). */
export function isTimeout(err: unknown): boolean {
  return err instanceof Error && err.message === "Query read timeout";
}

/** Socket-level failures reported by Node rather than by the server. */
const NETWORK =
  /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN)$/;

/**
 * Whether an error means the database cannot be used right now: the connection failed, was
 * refused, broke or went silent past the query timeout, the server ended a statement before it
 * was done (its own timeout, or an operator), the server is shutting down or out of resources,
 * or it only reads (a standby).
 */
export function isUnavailable(err: unknown): boolean {
  const code = sqlState(err);
  if (NETWORK.test(code)) return true;
  // 08: connection exception; 28: the server refuses hookline's login (a password rotated, a
  // role's LOGIN taken away, pg_hba.conf); 53: insufficient resources (too many connections,
  // disk full); 57P01-57P03: admin or crash shutdown, cannot connect now; 58: system (I/O) error;
  // 25006: read-only transaction; 3D000: the database does not exist (any more); XX001/XX002:
  // corrupted data or index. 57014 (canceled: a statement_timeout of DATABASE_URL's options, or
  // pg_cancel_backend) and 55P03 (its lock_timeout) are the server's side of the query timeout:
  // the database did not get to the statement in time, which says nothing against the request.
  // 42P01 (no such table) and 3F000 (no such schema): hookline's schema was dropped under it (a
  // restore begun with hookline running); it works again once the schema is back. 25P03: the
  // server ended the session, its transaction left idle too long (the process was stopped).
  if (/^(08|28|53|58)/.test(code)) return true;
  const codes = [
    ...["57P01", "57P02", "57P03", "57014", "55P03", "25006", "3D000", "XX001", "XX002"],
    ...["42P01", "3F000", IDLE_IN_TRANSACTION_ENDED],
  ];
  if (codes.includes(code)) return true;
  const message = err instanceof Error ? err.message : "";
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Cannot use a pool after calling end|Query read timeout|Client was closed and is not queryable/i.test(
    message,
  );
}

/** Turns a driver error into hookline's: ConflictError for a unique violation, or unavailable. */
export function mapError(err: unknown, uniqueWhat?: string): unknown {
  if (sqlState(err) === "23505" && uniqueWhat) {
    return new ConflictError(`${uniqueWhat} already exists`, { cause: err });
  }
  if (isEndedIdle(err)) {
    return new StoreUnavailableError(
      `PostgreSQL store unavailable (${IDLE_IN_TRANSACTION_ENDED}: the server ended a transaction of this process's left idle past HOOKLINE_PG_QUERY_TIMEOUT_MS, as when the process is stopped or its machine paused, and rolled it back)`,
      { cause: err },
    );
  }
  if (isUnavailable(err)) {
    const code = sqlState(err) || (err instanceof Error ? err.message : "unknown");
    return new StoreUnavailableError(`PostgreSQL store unavailable (${code})`, { cause: err });
  }
  return err;
}
