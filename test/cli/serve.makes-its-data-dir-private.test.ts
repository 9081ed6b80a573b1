/**
 * Without an encryption key the SQLite file holds endpoint secrets in plaintext, so a data dir
 * hookline makes is readable by its own user only; one the operator made keeps its mode, and the
 * database's files in it are still hookline's alone. A database or admin-token file that exists
 * keeps its mode too (an older hookline made them with the umask's 0644), and start-up warns of
 * one others can read, with the command that makes it private.
 */
import { chmodSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { runHookline } from "../support/process.js";

const cleanup = useCleanup();
const parent = () => tempDir(cleanup, "hookline-datadir-");

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe("the data dir", () => {
  it("is made 0700 when hookline creates it, with an admin token set", async () => {
    const dir = join(parent(), "nested", "data");
    await runHookline(cleanup, dir);
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(join(dir, ".."))).toBe(0o700);
  });

  it("is made 0700 when hookline creates it and keeps its own admin token", async () => {
    const dir = join(parent(), "data");
    await runHookline(cleanup, dir, { HOOKLINE_ADMIN_TOKEN: "" });
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(join(dir, "admin-token"))).toBe(0o600);
  });

  it("keeps the mode of a directory that already exists", async () => {
    const dir = join(parent(), "data");
    mkdirSync(dir);
    chmodSync(dir, 0o750);
    await runHookline(cleanup, dir);
    expect(modeOf(dir)).toBe(0o750);
  });

  it("makes the database and its -wal and -shm files 0600 in a directory others may read", async () => {
    const dir = join(parent(), "data");
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    await runHookline(cleanup, dir); // running: SQLite keeps its -wal and -shm files meanwhile
    for (const file of ["hookline.db", "hookline.db-wal", "hookline.db-shm"]) {
      expect([file, modeOf(join(dir, file))]).toEqual([file, 0o600]);
    }
  });

  it("warns of a database or admin-token file others can read, and keeps its mode", async () => {
    const dir = join(parent(), "data");
    const first = await runHookline(cleanup, dir, { HOOKLINE_ADMIN_TOKEN: "" });
    expect(first.output()).not.toContain("can be read by other users");
    first.child.kill("SIGTERM");
    await first.exited;
    chmodSync(join(dir, "hookline.db"), 0o644);
    chmodSync(join(dir, "admin-token"), 0o640);

    const again = await runHookline(cleanup, dir, { HOOKLINE_ADMIN_TOKEN: "" });
    const banner = again.output();
    const db = join(dir, "hookline.db");
    expect(banner).toContain(
      `  WARNING:      ${db} can be read by other users (mode 0644): chmod 600 ${db}*`,
    );
    const token = join(dir, "admin-token");
    expect(banner).toContain(
      `  WARNING:      ${token} can be read by other users (mode 0640): chmod 600 ${token}`,
    );
    expect(modeOf(db)).toBe(0o644);
  });

  it("warns of an admin-token file others can read on PostgreSQL too", async () => {
    const dir = join(parent(), "data");
    mkdirSync(dir);
    const schema = freshSchemaName();
    cleanup.push(() => dropSchema(schema));
    const env = {
      HOOKLINE_ADMIN_TOKEN: "",
      DATABASE_URL: TEST_DATABASE_URL,
      HOOKLINE_PG_SCHEMA: schema,
    };
    const first = await runHookline(cleanup, dir, env);
    first.child.kill("SIGTERM");
    await first.exited;
    chmodSync(join(dir, "admin-token"), 0o644);

    const again = await runHookline(cleanup, dir, env);
    const token = join(dir, "admin-token");
    expect(again.output()).toContain(
      `  WARNING:      ${token} can be read by other users (mode 0644): chmod 600 ${token}`,
    );
  }, 60_000);
});
