/**
 * One hookline per SQLite data dir. A process on the embedded store takes what is claimed in it as
 * its own: starting, it puts every claimed delivery back in line, as a crash's. A second one on the
 * same dir would so hand out again the first one's requests in flight, whose outcomes the store
 * then refuses: deliveries sent twice. (Several processes share a PostgreSQL database instead.)
 *
 * The lock is SQLite's exclusive lock on a file of its own, held by a transaction left open: the
 * kernel lets go of it however the process ends, kill -9 too, so no stale lock needs clearing.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { ConfigError } from "./errors.js";

/** The file in the data dir whose lock says a hookline runs on it. */
export const LOCK_FILE = "hookline.lock";

/** A data dir this process holds; release() lets another process have it. */
export interface DataDirLock {
  release(): void;
}

/** Takes the data dir, or throws a ConfigError naming HOOKLINE_DATA_DIR if another holds it. */
export function lockDataDir(dataDir: string): DataDirLock {
  const db = new Database(join(dataDir, LOCK_FILE), { timeout: 0 });
  try {
    // Nothing is written: the lock's journal stays in memory, not beside the file.
    db.pragma("journal_mode = MEMORY");
    db.exec("BEGIN EXCLUSIVE");
  } catch (err) {
    db.close();
    if ((err as { code?: unknown }).code !== "SQLITE_BUSY") throw err;
    throw new ConfigError(
      `HOOKLINE_DATA_DIR ${dataDir} is in use by another hookline: run one per data dir (processes that share work share a PostgreSQL database, DATABASE_URL; see docs/scaling.md)`,
      { cause: err },
    );
  }
  return { release: () => db.close() };
}
