/**
 * `hookline store copy` only reads the SQLite store, yet the user running it must be able to write
 * the data dir: SQLite reads a store in WAL mode through a shared-memory file it makes beside it
 * (hookline.db-shm), and the copy takes the data dir's lock (hookline.lock) as hookline does. Run
 * by a user who may read the data dir but not write it, the copy failed with SQLite's "attempt to
 * write a readonly database", naming the file but not the setting or what to do; where no
 * hookline had made the lock file yet, with a stack trace ("unable to open database file"). It
 * now says HOOKLINE_DATA_DIR must be writable by that user, and why, before it does anything.
 *
 * The user is made real: the data dir is read-only to all (0555), and the tests' root, which may
 * write anything, runs the copy as the unprivileged uid 65534.
 *
 * On a read-only file system (a backup or snapshot mounted read-only, say) no user may write the
 * data dir: the refusal said so, yet sent the operator to run the copy as hookline's user, which
 * fails the same. It now says to copy the data dir to a writable file system first, or mount it
 * read-write. That file system is made real too: the copy runs in a mount namespace of its own
 * where the data dir is mounted read-only over itself.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { runCli, type RunAs } from "../support/built-cli.js";
import { useCleanup } from "../support/cleanup.js";
import { aSchemaName, schemaExists, TEST_DATABASE_URL } from "../support/postgres.js";
import { aSqliteDataDir } from "../support/store-copy.js";

const cleanup = useCleanup();

const NOBODY = 65_534;
const as: RunAs | undefined = process.getuid?.() === 0 ? { uid: NOBODY, gid: NOBODY } : undefined;

for (const served of [false, true]) {
  it(`is refused naming HOOKLINE_DATA_DIR and why, ${served ? "its lock file made by a hookline that served it" : "no hookline having served it"}`, async () => {
    const { dir } = await aSqliteDataDir(cleanup, { messages: 2 });
    if (served) writeFileSync(join(dir, "hookline.lock"), "");
    for (const f of readdirSync(dir)) chmodSync(join(dir, f), 0o644);
    chmodSync(dir, 0o555);
    cleanup.push(async () => chmodSync(dir, 0o700));
    const schema = aSchemaName(cleanup);

    const run = await runCli(
      ["store", "copy", "--to", TEST_DATABASE_URL, "--schema", schema],
      { HOOKLINE_DATA_DIR: dir },
      as,
    );
    expect(run.code, run.err).toBe(1);
    expect(run.err).toMatch(
      new RegExp(
        `^hookline: HOOKLINE_DATA_DIR ${dir} must be writable by the user running the copy, and this one \\(${as ? `[^)]*uid ${NOBODY}` : "[^)]+"}\\) may not write there: `,
      ),
    );
    expect(run.err).toContain(
      "SQLite reads a store in WAL mode through a shared-memory file it makes beside it (hookline.db-shm)",
    );
    expect(run.err).toContain(
      "run the copy as the user hookline runs as, or let this one write to the data dir; nothing was copied\n",
    );
    expect(run.err).not.toMatch(/\n\s+at /);
    expect(await schemaExists(schema)).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(
      served ? ["hookline.db", "hookline.lock"] : ["hookline.db"],
    );
  });
}

/** Whether this run may mount a directory read-only for one command (root, util-linux's unshare). */
const mayMount = process.getuid?.() === 0 && spawnSync("unshare", ["-m", "true"]).status === 0;

it.skipIf(!mayMount)(
  "on a read-only file system, is refused saying to copy the data dir to a writable one",
  async () => {
    const { dir } = await aSqliteDataDir(cleanup, { messages: 2 });
    const schema = aSchemaName(cleanup);

    const run = await runCli(
      ["store", "copy", "--to", TEST_DATABASE_URL, "--schema", schema],
      { HOOKLINE_DATA_DIR: dir },
      { readOnly: dir },
    );
    expect(run.code, run.err).toBe(1);
    expect(run.err).toMatch(
      new RegExp(
        `^hookline: HOOKLINE_DATA_DIR ${dir} must be writable by the user running the copy, and it is on a read-only file system: `,
      ),
    );
    expect(run.err).toContain(
      "copy the data dir, every file in it, to a writable file system (cp -a) and run the copy with HOOKLINE_DATA_DIR there, or mount it read-write; nothing was copied\n",
    );
    expect(run.err).not.toContain("run the copy as the user hookline runs as");
    expect(await schemaExists(schema)).toBe(false);
    expect(readdirSync(dir)).toEqual(["hookline.db"]);
  },
);
