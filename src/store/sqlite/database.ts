import Database from "better-sqlite3";
import type { Database as Db } from "better-sqlite3";
import { closeSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { StoreUnavailableError } from "../../errors.js";
import { makeDirectory } from "../../make-directory.js";
import type { FieldCipher } from "../../security/cipher.js";
import type { CheckpointSettings } from "./checkpointer.js";
import type { StoreLimits } from "../port.js";
import { MIGRATIONS, type Migration } from "./migrations.js";
import { refuseNewerSchema } from "../newer-schema.js";

export interface SqliteOptions {
  /** Path of the database file, or ":memory:". */
  path: string;
  /**
   * `normal` survives a killed process (a committed transaction is in the WAL before the API
   * answers); `full` also survives power loss, at the price of an fsync per commit.
   */
  synchronous: "normal" | "full";
  /** Limits enforced as it writes; defaults to DEFAULT_STORE_LIMITS. */
  limits?: Partial<StoreLimits>;
  /** Seals secrets and payloads at rest; without one, they are stored as plaintext. */
  cipher?: FieldCipher;
  /**
   * Checkpoint the WAL on a thread of its own (checkpointer.ts), as hookline's process does.
   * Without, SQLite's default: inside whichever commit takes the WAL past 1,000 pages.
   */
  checkpoints?: CheckpointSettings;
}

/** Opens the database file in WAL mode and brings its schema up to date. */
export function openDatabase(options: SqliteOptions): Db {
  // A data dir hookline makes is its own (0700): without an encryption key the file holds
  // endpoint secrets in plaintext. A directory that already exists keeps its mode.
  if (options.path !== ":memory:") {
    makeDirectory(dirname(options.path), 0o700);
  }
  let db: Db;
  try {
    // The file itself is made 0600 before SQLite makes it (with the umask's usual 0644), so that
    // in a directory others may read (a volume mounted 0755) it is still hookline's alone; SQLite
    // gives its -wal and -shm files the database file's mode. A file that exists keeps its mode.
    if (options.path !== ":memory:") closeSync(openSync(options.path, "a", 0o600));
    db = new Database(options.path);
  } catch (err) {
    throw new StoreUnavailableError(`cannot open SQLite database at ${options.path}`, {
      cause: err,
    });
  }
  // The busy timeout first: switching a new file to WAL takes a lock that another process opening
  // the same file at that moment may hold.
  db.pragma("busy_timeout = 5000");
  enableWal(db);
  db.pragma(`synchronous = ${options.synchronous === "full" ? "FULL" : "NORMAL"}`);
  db.pragma("temp_store = MEMORY");
  db.pragma("cache_size = -65536");
  migrate(db, MIGRATIONS);
  return db;
}

/**
 * Switches the file to WAL. SQLite may refuse that with SQLITE_BUSY at once, without waiting on the
 * busy timeout, while another process is opening the same new file; so try again a few times.
 */
export function enableWal(db: Db): void {
  for (let attempt = 1; ; attempt++) {
    try {
      db.pragma("journal_mode = WAL");
      return;
    } catch (err) {
      const code = (err as { code?: string }).code ?? "";
      if (!code.startsWith("SQLITE_BUSY") || attempt >= 50) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
}

/**
 * Applies pending migrations, each in its own IMMEDIATE transaction: the write lock is taken before
 * the ledger is read, so two processes starting at once apply each migration exactly once.
 */
export function migrate(db: Db, migrations: readonly Migration[]): number {
  db.exec(`CREATE TABLE IF NOT EXISTS hookline_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const newest = db.prepare("SELECT max(version) AS v FROM hookline_migrations").get() as {
    v: number | null;
  };
  refuseNewerSchema(newest.v, migrations, `the SQLite database ${db.name}`);
  let applied = 0;
  for (const m of migrations) {
    const apply = db.transaction(() => {
      const done = db.prepare("SELECT 1 FROM hookline_migrations WHERE version = ?").get(m.version);
      if (done) return false;
      db.exec(m.sql);
      db.prepare(
        "INSERT INTO hookline_migrations (version, name, applied_at) VALUES (?, ?, ?)",
      ).run(m.version, m.name, Date.now());
      return true;
    });
    if (apply.immediate()) applied++;
  }
  return applied;
}
