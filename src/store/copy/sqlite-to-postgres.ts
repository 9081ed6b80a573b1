/**
 * Copies a stopped SQLite hookline's whole store into an empty PostgreSQL schema (`hookline store
 * copy`), so a hookline started on that schema carries on where the SQLite one stopped: the same
 * ids, times, secrets (copied sealed as they are), tokens, idempotency keys and dead letters, and
 * the deliveries still to be sent. The tables and how each is copied: plan.ts.
 */
import { HooklineError } from "../../errors.js";
import { sayPgVariables, type PgVariable } from "../../postgres-environment.js";
import type { FieldCipher } from "../../security/cipher.js";
import { refuseNewerSchema } from "../newer-schema.js";
import { isEndedIdle, isUnavailable } from "../postgres/database.js";
import { MIGRATIONS } from "../postgres/migrations.js";
import {
  asRestarted,
  COPIED,
  isSqlitesOwn,
  LEFT_OUT,
  toPostgres,
  type CopiedTable,
  type SourceRow,
} from "./plan.js";
import {
  occupiedError,
  PostgresDestination,
  refuseNarrowEncoding,
  refuseWithoutRights,
  type ColumnTypes,
  type DestinationOptions,
  type DestinationState,
} from "./postgres-destination.js";
import { SqliteSource } from "./sqlite-source.js";

/** What to copy where. */
export interface CopyRequest {
  /** The SQLite database file (`<data dir>/hookline.db`). */
  sqliteFile: string;
  to: DestinationOptions;
  /** The PG* variables filling in what `to`'s URL leaves out, named if it cannot connect. */
  pgVariables?: readonly PgVariable[];
  /** The keys hookline runs with: the source's sealed values must open with them. */
  cipher: FieldCipher;
  /** A process on the destination heard from within this long is taken to be running there. */
  workerDeadAfterMs: number;
  now: () => number;
  /** Told as each table starts and after each batch, for a long copy's progress. */
  onProgress?: (p: CopyProgress) => void;
  /** Rows per INSERT (and at most so many bytes of values): defaults suit any installation. */
  batch?: { rows: number; bytes: number };
  /**
   * Runs every check up to the first write, then counts what would be copied instead of copying
   * it: nothing is written to the destination (no schema, migration, lock or sequence).
   */
  dryRun?: boolean;
  /** Told as the copy enters each stage, for what a stop then leaves (a dry run only checks). */
  onStage?: (stage: CopyStage) => void;
  /**
   * Asked once the destination is migrated and after each batch: true stops the copy there, its
   * transaction rolled back (see CopySummary.stopped). Not asked once it is finishing.
   */
  stopRequested?: () => boolean;
}

/**
 * What a copy is doing, for what stopping it leaves: checking (nothing written yet), migrating
 * the destination (each migration commits on its own), copying (in one transaction), finishing
 * (counting again, committing, then gathering statistics).
 */
export type CopyStage = "checking" | "migrating" | "copying" | "finishing";

/** Where a copy stands. */
export interface CopyProgress {
  table: CopiedTable;
  copied: number;
  total: number;
}

/** What was copied, counted again in the destination before its commit (or, dry, what would be). */
export interface CopySummary {
  /** The destination as the copy found it, before migrating it. */
  destination: DestinationState;
  tables: { table: CopiedTable; rows: number }[];
  /** Deliveries still to be sent, of which `recovered` were in flight when hookline stopped. */
  pending: number;
  recovered: number;
  /** Text values holding NUL characters, which were written as U+FFFD (see toPostgres). */
  nulsReplaced: number;
  /**
   * Set when the copy stopped as asked (stopRequested): in `table`, or with no table once the
   * destination was migrated, before copying. What it wrote was rolled back.
   */
  stopped: { table: CopiedTable | null } | null;
}

const DEFAULT_BATCH = { rows: 500, bytes: 8 * 1024 * 1024 };
/** PostgreSQL takes at most 65,535 parameters in one statement. */
const MAX_PARAMETERS = 65_535;

/**
 * Copies, or throws having written nothing (a refusal) or having rolled everything back. A dry run
 * runs the same checks, on the same path, and stops before the first write with what it would copy.
 * Asked to stop (stopRequested), it rolls back what it wrote and says where it stopped.
 */
export async function copySqliteToPostgres(req: CopyRequest): Promise<CopySummary> {
  const source = SqliteSource.open(req.sqliteFile);
  try {
    source.checkVersion();
    checkEveryTableIsPlanned(source.tables());
    source.checkKeys(req.cipher);
    const dest = await connect(req.to, req.pgVariables ?? []);
    // Up to the migration only read: a failure before it (a dry run's among them) wrote nothing.
    let writing = false;
    try {
      const liveAfter = req.now() - req.workerDeadAfterMs;
      // What migrating would refuse, refused before it (a dry run does not migrate): a database
      // that cannot hold every character, a role that cannot make the schema or its tables
      // (first: without USAGE, nothing in it can be read), and a schema a newer hookline migrated.
      const destination = await dest.state();
      refuseNarrowEncoding(destination);
      refuseWithoutRights(dest.schema, destination);
      // Before migrating: a schema holding data is refused untouched, even one of an older version.
      const found = await dest.occupied(liveAfter);
      if (found.length > 0) throw occupiedError(dest.schema, found);
      refuseNewerSchema(destination.version, MIGRATIONS, `the PostgreSQL schema "${dest.schema}"`);
      if (req.dryRun) return countWhatWouldBeCopied(source, destination, req.now());
      // Counted here, outside the transaction: on a large store on a cold disk a count can take
      // longer than the server lets the transaction stand idle (see postgres-destination.ts).
      const counts = countSource(source);
      writing = true;
      req.onStage?.("migrating");
      await dest.migrate();
      // Asked meanwhile: the migration was let end, as its transactions are the schema's own.
      if (req.stopRequested?.()) return { ...emptySummary(destination), stopped: { table: null } };
      req.onStage?.("copying");
      await dest.begin();
      // Again under the lock: a hookline may have written there since the first look.
      const foundNow = await dest.occupied(liveAfter);
      if (foundNow.length > 0) throw occupiedError(dest.schema, foundNow);
      const summary = await copyTables(source, dest, destination, counts, req);
      // Left uncommitted: closing the destination rolls it back.
      if (summary.stopped) return summary;
      req.onStage?.("finishing");
      await checkCounts(counts, dest, summary);
      await dest.commit();
      await dest.analyze().catch(() => undefined);
      return summary;
    } catch (err) {
      throw failed(err, dest.schema, writing, dest.idleTimeoutMs);
    } finally {
      await dest.close();
    }
  } finally {
    source.close();
  }
}

/** A table the plan does not know (a later migration's), and not SQLite's own, stops the copy. */
function checkEveryTableIsPlanned(tables: readonly string[]): void {
  const planned = new Set([...COPIED.map((t) => t.name), ...Object.keys(LEFT_OUT)]);
  const unplanned = tables.filter((t) => !planned.has(t) && !isSqlitesOwn(t));
  if (unplanned.length > 0) {
    throw new HooklineError(
      "copy_failed",
      `the SQLite database has tables this copy does not know how to move (${unplanned.join(", ")}); nothing was written`,
    );
  }
}

async function connect(
  to: DestinationOptions,
  pgVariables: readonly PgVariable[],
): Promise<PostgresDestination> {
  try {
    return await PostgresDestination.connect(to);
  } catch (err) {
    throw new HooklineError(
      "copy_failed",
      `cannot connect to the PostgreSQL database (--to): ${messageOf(err)}${sayPgVariables("--to", pgVariables)}; nothing was written`,
      { cause: err },
    );
  }
}

/**
 * A dry run's summary, read from the source alone: each table's rows, the deliveries still to be
 * sent as the copy would leave them (asRestarted), and the text values holding NULs, which the copy
 * would write with U+FFFD (toPostgres). Those of JSON columns, which the copy leaves as they are,
 * are counted too, but hookline never writes one there: JSON escapes a NUL.
 */
function countWhatWouldBeCopied(
  source: SqliteSource,
  destination: DestinationState,
  now: number,
): CopySummary {
  const summary = emptySummary(destination);
  const rows = countRows(source);
  for (const table of COPIED) {
    summary.tables.push({ table, rows: rows.get(table.name)! });
    summary.nulsReplaced += source.nulValues(table.name, source.columns(table.name));
  }
  for (const [state, n] of source.deliveryStates()) {
    countDelivery(summary, { state }, asRestarted("deliveries", { state }, now), n);
  }
  return summary;
}

function emptySummary(destination: DestinationState): CopySummary {
  return { destination, tables: [], pending: 0, recovered: 0, nulsReplaced: 0, stopped: null };
}

/** Counts `n` deliveries, read as `raw` and copied as `copied`, in the summary. */
function countDelivery(summary: CopySummary, raw: SourceRow, copied: SourceRow, n = 1): void {
  if (raw.state === "inflight") summary.recovered += n;
  if (copied.state === "pending") summary.pending += n;
}

/**
 * The source's rows per copied table and open dead letters per endpoint. The source reads one
 * snapshot (see SqliteSource), so these stand for the whole copy: its progress, and the check
 * before its commit.
 */
interface SourceCounts {
  rows: ReadonlyMap<string, number>;
  depth: ReadonlyMap<string, number>;
}

function countSource(source: SqliteSource): SourceCounts {
  return { rows: countRows(source), depth: source.depth() };
}

/** The source's rows per copied table, as a dry run reports them and a copy checks them. */
function countRows(source: SqliteSource): ReadonlyMap<string, number> {
  return new Map(COPIED.map((t) => [t.name, source.count(t.name)]));
}

async function copyTables(
  source: SqliteSource,
  dest: PostgresDestination,
  destination: DestinationState,
  counts: SourceCounts,
  req: CopyRequest,
): Promise<CopySummary> {
  const now = req.now();
  const limits = req.batch ?? DEFAULT_BATCH;
  const summary = emptySummary(destination);
  for (const table of COPIED) {
    const columns = source.columns(table.name);
    const types = await dest.columnTypes(table.name);
    checkColumns(table, columns, types);
    const total = counts.rows.get(table.name)!;
    req.onProgress?.({ table, copied: 0, total });
    const rows = Math.min(limits.rows, Math.floor(MAX_PARAMETERS / columns.length));
    let copied = 0;
    try {
      for (const batch of source.batches(table.name, columns, table.orderBy, { ...limits, rows })) {
        const values = batch.map((raw) => {
          const row = asRestarted(table.name, raw, now);
          if (table.name === "deliveries") countDelivery(summary, raw, row);
          return columns.map((c) => {
            const value = toPostgres(row[c], types.get(c)!);
            // The same string back unless it held a NUL: comparing them costs nothing then.
            if (typeof value === "string" && value !== row[c]) summary.nulsReplaced++;
            return value;
          });
        });
        await dest.insert(table, columns, values);
        copied += batch.length;
        req.onProgress?.({ table, copied, total });
        if (req.stopRequested?.()) {
          summary.tables.push({ table, rows: copied });
          summary.stopped = { table };
          return summary;
        }
      }
      if (table.identity) await dest.moveIdentityPast(table, source.sequence(table.name));
    } catch (err) {
      throw new HooklineError(
        "copy_failed",
        `writing ${table.name} (${copied} of ${total} rows written) failed: ${messageOf(err)}`,
        { cause: err },
      );
    }
    summary.tables.push({ table, rows: copied });
  }
  return summary;
}

/** A source column the destination lacks would be dropped: refused instead. */
function checkColumns(table: CopiedTable, columns: readonly string[], types: ColumnTypes): void {
  const missing = columns.filter((c) => !types.has(c));
  if (missing.length > 0) {
    throw new HooklineError(
      "copy_failed",
      `the destination's ${table.name} has no column ${missing.join(", ")}`,
    );
  }
}

/**
 * Every table's rows, and the dead-letter depth per endpoint, counted in PostgreSQL against
 * SQLite's counts (taken before the transaction).
 */
async function checkCounts(
  counts: SourceCounts,
  dest: PostgresDestination,
  summary: CopySummary,
): Promise<void> {
  const differ: string[] = [];
  for (const { table } of summary.tables) {
    const [from, to] = [counts.rows.get(table.name)!, await dest.count(table.name)];
    if (from !== to) differ.push(`${table.name}: ${from} in SQLite, ${to} in PostgreSQL`);
  }
  const [from, to] = [counts.depth, await dest.depth()];
  for (const endpoint of new Set([...from.keys(), ...to.keys()])) {
    const [a, b] = [from.get(endpoint) ?? 0, to.get(endpoint) ?? 0];
    if (a !== b)
      differ.push(`open dead letters of ${endpoint}: ${a} in SQLite, ${b} in PostgreSQL`);
  }
  if (differ.length > 0) {
    throw new HooklineError("copy_failed", `the counts differ after copying: ${differ.join("; ")}`);
  }
}

/**
 * Any failure past the first look at the destination, said with what became of it, and why, when
 * the server ended the copy's session for idling in its transaction (`idleMs`).
 */
function failed(err: unknown, schema: string, writing: boolean, idleMs: number): unknown {
  if (err instanceof HooklineError && err.code === "config") return err;
  const root = err instanceof HooklineError && err.cause ? err.cause : err;
  const lost = isEndedIdle(root)
    ? ` (PostgreSQL ended the copy's session, its transaction left idle past HOOKLINE_PG_QUERY_TIMEOUT_MS (${idleMs} ms), as when the copy's process is stopped or its machine paused)`
    : isUnavailable(root)
      ? " (PostgreSQL was lost or did not answer)"
      : "";
  if (!writing) {
    // Said alike by the dry run and the copy, as its refusals are.
    return new HooklineError(
      "copy_failed",
      `the copy cannot go ahead${lost}: ${messageOf(err)}; nothing was written to the PostgreSQL schema "${schema}", and the SQLite store is unchanged`,
      { cause: err },
    );
  }
  return new HooklineError(
    "copy_failed",
    `the copy failed${lost}: ${messageOf(err)}; none of its rows were kept in the PostgreSQL schema "${schema}" (they were written in one transaction, rolled back), and the SQLite store is unchanged`,
    { cause: err },
  );
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
