/**
 * The SQLite store a copy reads: opened read-only, one read transaction for the whole copy (so every
 * table, and the counts checked at the end, are of one moment), rows streamed in batches.
 */
import Database from "better-sqlite3";
import type { Database as Db } from "better-sqlite3";
import { ConfigError } from "../../errors.js";
import type { FieldCipher } from "../../security/cipher.js";
import { Sealing } from "../sealing.js";
import { MIGRATIONS } from "../sqlite/migrations.js";
import { verifySealing } from "../sqlite/reseal.js";
import type { SourceRow } from "./plan.js";

/** A SQLite store opened for reading only. */
export class SqliteSource {
  private constructor(
    private readonly db: Db,
    readonly file: string,
  ) {}

  /**
   * Opens `file` read-only, or throws a ConfigError naming it. A WAL a killed hookline left is read
   * with the file (its commits are there); nothing is written to either.
   */
  static open(file: string): SqliteSource {
    let db: Db;
    try {
      db = new Database(file, { readonly: true, fileMustExist: true, timeout: 5_000 });
      db.exec("BEGIN");
      // The snapshot starts at the first read, not at BEGIN.
      db.prepare("SELECT count(*) FROM sqlite_master").get();
    } catch (err) {
      throw new ConfigError(
        `cannot read the SQLite database ${file}: ${err instanceof Error ? err.message : String(err)}`,
        { cause: err },
      );
    }
    return new SqliteSource(db, file);
  }

  /**
   * Refuses a file at another schema version than this hookline's: one an older hookline wrote is
   * brought up to date by starting this version on it once (reading it as it is would misplace
   * the columns added since); one a newer hookline wrote holds what this version cannot copy.
   */
  checkVersion(): void {
    const applied = (
      this.db.prepare("SELECT version FROM hookline_migrations ORDER BY version").all() as {
        version: number;
      }[]
    ).map((r) => r.version);
    const known = MIGRATIONS.map((m) => m.version);
    const newest = applied[applied.length - 1] ?? 0;
    const current = known[known.length - 1]!;
    if (applied.join() === known.join()) return;
    if (newest > current) {
      throw new ConfigError(
        `the SQLite database ${this.file} was migrated by a newer hookline (schema version ${newest}; this version knows up to ${current}): copy it with that version`,
      );
    }
    throw new ConfigError(
      `the SQLite database ${this.file} is at schema version ${newest}, this hookline's is ${current}: start this version of hookline on it once (it brings the file up to date as it opens it), stop it, then copy`,
    );
  }

  /**
   * Opens the newest endpoint and message, and the oldest message still to be sent, with the keys
   * given, as `serve` does at start: a store whose sealed values these keys cannot open is refused
   * before anything is written, with the id of the key it needs.
   */
  checkKeys(cipher: FieldCipher): void {
    verifySealing(this.db, new Sealing(cipher));
  }

  /** The source's tables (SQLite's internal ones too: the plan names each). */
  tables(): string[] {
    return (
      this.db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .all() as { name: string }[]
    ).map((r) => r.name);
  }

  /** A table's columns, in their order. */
  columns(table: string): string[] {
    return (this.db.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name);
  }

  count(table: string): number {
    return (this.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  }

  /** The largest value an AUTOINCREMENT column of `table` has handed out, deleted rows too. */
  sequence(table: string): number {
    const row = this.db.prepare("SELECT seq FROM sqlite_sequence WHERE name = ?").get(table) as
      { seq: number } | undefined;
    return row?.seq ?? 0;
  }

  /** How many deliveries are in each state. */
  deliveryStates(): Map<string, number> {
    const rows = this.db
      .prepare("SELECT state, count(*) AS n FROM deliveries GROUP BY state")
      .all() as { state: string; n: number }[];
    return new Map(rows.map((r) => [r.state, r.n]));
  }

  /**
   * How many of `table`'s text values hold a NUL character. SQLite finds them itself, and reads
   * no BLOB to do so (typeof() looks at a value's type only, and CASE stops there): a message's
   * payload is one.
   */
  nulValues(table: string, columns: readonly string[]): number {
    const held = columns.map(
      (c) => `CASE WHEN typeof("${c}") = 'text' THEN instr("${c}", char(0)) > 0 ELSE 0 END`,
    );
    const row = this.db
      .prepare(`SELECT coalesce(sum(${held.join(" + ")}), 0) AS n FROM ${table}`)
      .get() as { n: number };
    return row.n;
  }

  /** Open and replaying dead letters per endpoint, as the depth table keeps them. */
  depth(): Map<string, number> {
    const rows = this.db
      .prepare("SELECT endpoint_id, open FROM dead_letter_depth WHERE open <> 0")
      .all() as { endpoint_id: string; open: number }[];
    return new Map(rows.map((r) => [r.endpoint_id, r.open]));
  }

  /**
   * A table's rows in `orderBy` order, in batches of at most `rows` rows and, past the first row,
   * `bytes` bytes of BLOB and text (a message's payload may be large): never the whole table in
   * memory. No other statement may run on the source until the batches are all read.
   */
  *batches(
    table: string,
    columns: readonly string[],
    orderBy: string,
    limits: { rows: number; bytes: number },
  ): Generator<SourceRow[]> {
    const select = this.db.prepare(
      `SELECT ${columns.map((c) => `"${c}"`).join(", ")} FROM ${table} ORDER BY ${orderBy}`,
    );
    let batch: SourceRow[] = [];
    let bytes = 0;
    for (const row of select.iterate() as Iterable<SourceRow>) {
      batch.push(row);
      for (const v of Object.values(row)) {
        if (typeof v === "string" || Buffer.isBuffer(v)) bytes += v.length;
      }
      if (batch.length >= limits.rows || bytes >= limits.bytes) {
        yield batch;
        batch = [];
        bytes = 0;
      }
    }
    if (batch.length > 0) yield batch;
  }

  close(): void {
    if (this.db.inTransaction) this.db.exec("COMMIT");
    this.db.close();
  }
}
