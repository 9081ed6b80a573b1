/**
 * What `hookline store copy` moves from a SQLite store to a PostgreSQL schema, table by table, and
 * why the few tables it leaves out are left out. The two adapters' migrations keep the same tables
 * and columns (src/store/sqlite/migrations.ts, src/store/postgres/migrations.ts); they differ in
 * types only: SQLite's 0/1 for booleans, JSON as text and INTEGER milliseconds become BOOLEAN,
 * `json` (which keeps the text as written) and BIGINT. Each value is converted by the type of its
 * destination column, read from the destination itself, so a column either side adds later is met
 * by name: one the source has and the destination lacks stops the copy rather than being dropped.
 */

/** A table copied row by row. */
export interface CopiedTable {
  readonly name: string;
  /** How the summary names its rows. */
  readonly label: string;
  /** The source's unique order, so batches follow one another and each row is read once. */
  readonly orderBy: string;
  /**
   * An identity column (GENERATED ALWAYS on PostgreSQL, AUTOINCREMENT on SQLite): copied as it is
   * (the records cite it: a dead letter's history is read in its order), and the destination's
   * sequence then moved past it, so new rows sort after the copied ones and never collide.
   */
  readonly identity?: string;
}

/**
 * Every table copied, in this order. There are no foreign keys between them; dead letters come
 * before anything that reads their depth (see LEFT_OUT).
 */
export const COPIED: readonly CopiedTable[] = [
  { name: "applications", label: "applications", orderBy: "id" },
  { name: "endpoints", label: "endpoints", orderBy: "id" },
  { name: "event_types", label: "event types", orderBy: "name" },
  { name: "messages", label: "messages", orderBy: "id" },
  { name: "deliveries", label: "deliveries", orderBy: "id" },
  { name: "attempts", label: "attempts", orderBy: "id" },
  { name: "dead_letters", label: "dead letters", orderBy: "id" },
  {
    name: "dead_letter_events",
    label: "dead-letter history entries",
    orderBy: "seq",
    identity: "seq",
  },
  { name: "dead_letter_overflow", label: "dead letters not kept (depth cap)", orderBy: "id" },
  { name: "replay_jobs", label: "replay jobs", orderBy: "id" },
  { name: "replay_job_items", label: "replay job items", orderBy: "job_id, dead_letter_id" },
  { name: "circuits", label: "circuits", orderBy: "endpoint_id" },
  {
    name: "circuit_transitions",
    label: "circuit transitions",
    orderBy: "seq",
    identity: "seq",
  },
  { name: "endpoint_stats", label: "endpoint stats", orderBy: "endpoint_id" },
  { name: "idempotency_keys", label: "idempotency keys", orderBy: "scope, key" },
  { name: "api_tokens", label: "API and portal tokens", orderBy: "id" },
  { name: "alerts", label: "alerts", orderBy: "id" },
  { name: "drill_runs", label: "failure drills", orderBy: "id" },
];

/**
 * Source tables deliberately not copied, each with why. A table in neither list, and not one of
 * SQLite's own (see isSqlitesOwn), stops the copy.
 */
export const LEFT_OUT: Readonly<Record<string, string>> = {
  // Kept by triggers on dead_letters on both sides: the destination's triggers count the copied
  // records as they are written, and the copy then checks the counts agree endpoint by endpoint.
  // Copied as well, every open record would be counted twice.
  dead_letter_depth: "counted again by the destination's triggers as dead letters are written",
  // Each store's own ledger: the numbers differ (PostgreSQL has migrations SQLite has not, 4 and
  // 7), and the destination's is written by migrating it to this hookline's version first.
  hookline_migrations: "the destination keeps its own ledger, migrated to this version first",
  // SQLite's own record of AUTOINCREMENT counters: read to move the identities past it.
  sqlite_sequence: "SQLite's own; read to set the destination's sequences",
};

/**
 * Whether a source table is SQLite's own bookkeeping, which holds nothing of hookline's: SQLite
 * reserves the names starting `sqlite_` (no one else can make such a table). Besides its sequence
 * counters, these are the statistics an operator's ANALYZE or `PRAGMA optimize` leaves
 * (sqlite_stat1, sqlite_stat4), read by SQLite's query planner alone.
 */
export function isSqlitesOwn(table: string): boolean {
  return table.startsWith("sqlite_");
}

/**
 * PostgreSQL's tables and columns with no SQLite counterpart: the fleet's runtime state, which
 * names live processes. Nothing runs on the destination while the copy writes it, so there is
 * nothing to put there: `workers` and `endpoint_owners` stay as they are, and every copied
 * delivery has no `claimed_by` (no process holds it).
 */
export const DESTINATION_ONLY = {
  tables: ["workers", "endpoint_owners"],
  columns: { deliveries: ["claimed_by"] } as Readonly<Record<string, readonly string[]>>,
};

/** One row, column name to value, as better-sqlite3 reads it. */
export type SourceRow = Record<string, unknown>;

/**
 * A row of `table` as the SQLite hookline's next start would leave it: what a process that is
 * gone held, nobody holds on the destination, and left held it would wait there for that
 * process's lease to run out.
 *
 * - A delivery claimed when hookline stopped (killed, or its stop's time ran out) is pending again,
 *   due now unless it was due earlier (`recoverInflight`).
 * - A replay job running when hookline was killed is let go (`releaseReplayJobs`), so a runner
 *   takes it up at once rather than after the dead runner's lease (a minute). A clean stop hands
 *   its jobs back already.
 */
export function asRestarted(table: string, row: SourceRow, now: number): SourceRow {
  if (table === "deliveries" && row.state === "inflight") {
    const due = typeof row.next_attempt_at === "number" ? row.next_attempt_at : now;
    return { ...row, state: "pending", lease_until: null, next_attempt_at: Math.min(due, now) };
  }
  if (table === "replay_jobs" && row.state === "running") {
    return { ...row, lease_until: null, held_by: null };
  }
  return row;
}

/** A source value as its destination column of type `pgType` (information_schema's data_type). */
export function toPostgres(value: unknown, pgType: string): unknown {
  if (value === null || value === undefined) return null;
  // SQLite keeps booleans as 0 and 1.
  if (pgType === "boolean") return value !== 0 && value !== "0" && value !== false;
  // A PostgreSQL text column cannot hold NUL, which SQLite keeps: a hookline from before NULs
  // were kept out stored receivers' answers (and names its API took) with them. Each is written
  // as U+FFFD, as hookline records a NUL in a receiver's answer now; one refused row would
  // otherwise refuse the whole copy.
  if (pgType === "text" && typeof value === "string" && value.includes("\0")) {
    return value.replace(/\0/g, "\uFFFD");
  }
  // JSON text goes as it is: `json` keeps it byte for byte, and refuses it if it is not JSON.
  return value;
}
