/**
 * A data dir SQLite can read but not write (a read-only file system, a full disk) stops start-up
 * naming HOOKLINE_DATA_DIR and saying why in the operator's terms. SQLite opens such a file read
 * only without a word, so the fault surfaced at the first write, as the bare "SQLite store
 * unavailable (SQLITE_READONLY)"; and SQLite or Node name a full disk or a read-only file system
 * in ways that point elsewhere ("disk I/O error" when the shared-memory file cannot grow, ENOENT
 * when a directory cannot be made). Making those faults takes a mount, so the start is tested
 * with the store refusing as SQLite does there, and the wording with the file system as found.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createHookline } from "../../src/app.js";
import { resolveConfig } from "../../src/config.js";
import { ConfigError, StoreUnavailableError } from "../../src/errors.js";
import { dataDirFailure } from "../../src/start-failure.js";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { pino } from "pino";
import { tempDir, useCleanup } from "../support/cleanup.js";

const cleanup = useCleanup();
afterEach(() => {
  vi.restoreAllMocks();
});

const sqliteError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe("a data dir hookline cannot write", () => {
  it("stops start-up naming HOOKLINE_DATA_DIR when the first write is refused", async () => {
    const dataDir = tempDir(cleanup, "hookline-ro-");
    vi.spyOn(SqliteStore.prototype, "recoverInflight").mockRejectedValue(
      new StoreUnavailableError("SQLite store unavailable (SQLITE_READONLY)", {
        cause: sqliteError("SQLITE_READONLY", "attempt to write a readonly database"),
      }),
    );
    const hookline = createHookline(
      resolveConfig({
        HOOKLINE_DATA_DIR: dataDir,
        HOOKLINE_PORT: "0",
        HOOKLINE_SENDER_THREADS: "0",
      }),
      { logger: pino({ level: "silent" }) },
    );
    const refused = await hookline.start().catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as Error).message).toBe(
      `HOOKLINE_DATA_DIR ${dataDir} cannot be used: the database file is read-only`,
    );
  });

  const readOnly = { readOnly: true, freeBytes: 10 * 1024 ** 3 };
  const full = { readOnly: false, freeBytes: 4096 };
  const roomy = { readOnly: false, freeBytes: 10 * 1024 ** 3 };
  const named = (err: unknown, fs: typeof roomy) =>
    (dataDirFailure(err, "/srv/hookline", () => fs) as Error).message;

  it("says the file system is read-only, whatever SQLite or Node call it", () => {
    const readonlyDb = sqliteError("SQLITE_READONLY", "attempt to write a readonly database");
    const mkdirQuirk = Object.assign(new Error("ENOENT: no such file or directory, mkdir"), {
      code: "ENOENT",
    });
    // A store hookline made (WAL mode) on a file system remounted read-only since.
    const walDb = sqliteError("SQLITE_CANTOPEN", "unable to open database file");
    for (const err of [
      readonlyDb,
      mkdirQuirk,
      walDb,
      new StoreUnavailableError("x", { cause: readonlyDb }),
    ]) {
      expect(named(err, readOnly)).toBe(
        "HOOKLINE_DATA_DIR /srv/hookline cannot be used: the file system is read-only",
      );
    }
    // A file SQLite opened read only on a writable file system is the file's own doing.
    expect(named(readonlyDb, roomy)).toMatch(/the database file is read-only$/);
    expect(named(walDb, roomy)).toMatch(/the database file cannot be opened$/);
    // A missing parent on a writable file system is what Node says.
    expect(named(mkdirQuirk, roomy)).toMatch(/ENOENT: no such file or directory, mkdir$/);
  });

  it("says the disk is full when SQLite reports it as an I/O error", () => {
    const shm = sqliteError("SQLITE_IOERR_SHMSIZE", "disk I/O error");
    const write = sqliteError("SQLITE_IOERR_WRITE", "disk I/O error");
    for (const err of [shm, write, new StoreUnavailableError("x", { cause: shm })]) {
      expect(named(err, full)).toBe(
        "HOOKLINE_DATA_DIR /srv/hookline cannot be used: no space left on the device",
      );
    }
    expect(named(shm, roomy)).toMatch(/disk I\/O error$/);
  });
});
