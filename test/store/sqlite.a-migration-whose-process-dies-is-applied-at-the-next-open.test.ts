/**
 * A hookline killed while it migrates its SQLite file (kill -9 during an upgrade) leaves nothing
 * of that migration: each one is a transaction of its own, and the next open applies it whole.
 */
import Database from "better-sqlite3";
import { spawn } from "node:child_process";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, beforeEach, expect, it } from "vitest";
import { migrate } from "../../src/store/sqlite/database.js";
import { MIGRATIONS } from "../../src/store/sqlite/migrations.js";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { anApplication } from "./behaviour/fixtures.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DATABASE_MODULE = pathToFileURL(join(ROOT, "src/store/sqlite/database.ts")).href;
const MIGRATIONS_MODULE = pathToFileURL(join(ROOT, "src/store/sqlite/migrations.ts")).href;

const next = MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0) + 1;
// Fills a new table with far more rows than the cache holds, so its pages reach the WAL while
// the transaction is still open.
const SLOW = `CREATE TABLE cut_off (x INTEGER);
INSERT INTO cut_off WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200000000)
  SELECT x FROM c;`;

let dir: string;
let path: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "hookline-cut-migration-"));
  path = join(dir, "hookline.db");
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const walBytes = () =>
  stat(`${path}-wal`).then(
    (s) => s.size,
    () => 0,
  );

it("a migration cut off by its process being killed is applied whole at the next open", async () => {
  const store = new SqliteStore({ path, synchronous: "normal" });
  const app = await store.createApplication(anApplication({ uid: "kept" }));
  await store.close();
  const before = await walBytes();

  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      `
const { default: Database } = await import("better-sqlite3");
const { migrate, enableWal } = await import(${JSON.stringify(DATABASE_MODULE)});
const { MIGRATIONS } = await import(${JSON.stringify(MIGRATIONS_MODULE)});
const db = new Database(${JSON.stringify(path)});
enableWal(db);
migrate(db, [...MIGRATIONS, { version: ${next}, name: "slow", sql: ${JSON.stringify(SLOW)} }]);
`,
    ],
    { cwd: ROOT, stdio: "ignore" },
  );
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    // The slow migration's uncommitted pages are reaching the WAL.
    while ((await walBytes()) < before + 16 * 1024 * 1024) {
      if (child.exitCode !== null) throw new Error("the migrating process exited early");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    child.kill("SIGKILL");
    await exited;
  }

  const again = new Database(path);
  try {
    // Nothing of the killed migration is left: neither its table nor its row in the ledger.
    expect(
      again.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'cut_off'").get(),
    ).toEqual({ n: 0 });
    expect(again.prepare("SELECT max(version) AS v FROM hookline_migrations").get()).toEqual({
      v: next - 1,
    });
    const applied = migrate(again, [
      ...MIGRATIONS,
      { version: next, name: "slow", sql: "CREATE TABLE cut_off (x INTEGER)" },
    ]);
    expect(applied).toBe(1);
    expect(again.prepare("SELECT count(*) AS n FROM cut_off").get()).toEqual({ n: 0 });
    expect(again.pragma("integrity_check")).toEqual([{ integrity_check: "ok" }]);
    expect(again.prepare("SELECT id FROM applications WHERE uid = 'kept'").get()).toEqual({
      id: app.id,
    });
  } finally {
    again.close();
  }
}, 30_000);
