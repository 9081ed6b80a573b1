/**
 * A hookline killed while it migrates (an orchestrator's liveness probe, kill -9, a node lost)
 * leaves the migration to the next one it starts. The server ends the killed process's statement
 * once its connection is closed, so the next one migrates at once; the server used to run that
 * statement to its end, holding the migration lock, and only then roll it back.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import pg from "pg";
import { afterEach, expect, it } from "vitest";
import { migrate } from "../../src/store/postgres/migrate.js";
import { MIGRATIONS } from "../../src/store/postgres/migrations.js";
import { adminQuery, dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MIGRATE_MODULE = pathToFileURL(join(ROOT, "src/store/postgres/migrate.ts")).href;
const MIGRATIONS_MODULE = pathToFileURL(join(ROOT, "src/store/postgres/migrations.ts")).href;

const schema = freshSchemaName();
const next = MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0) + 1;

/** The server processes still running a statement of this test's slow migration. */
const stillRunning = () =>
  adminQuery(
    "SELECT pid FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() AND query LIKE $1",
    [`%slow migration of ${schema}%`],
  );

afterEach(async () => {
  // Without the server's check, the killed process's statement would run on for a minute.
  await adminQuery(
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query LIKE $1",
    [`%slow migration of ${schema}%`],
  );
  await dropSchema(schema);
});

it("a migration whose process is killed part way is applied by the next one at once", async () => {
  const slow = `CREATE TABLE cut_off (x int); SELECT pg_sleep(60) /* slow migration of ${schema} */`;
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      `
const { default: pg } = await import("pg");
const { migrate } = await import(${JSON.stringify(MIGRATE_MODULE)});
const { MIGRATIONS } = await import(${JSON.stringify(MIGRATIONS_MODULE)});
const pool = new pg.Pool({ connectionString: ${JSON.stringify(TEST_DATABASE_URL)}, max: 1 });
await migrate(pool, ${JSON.stringify(schema)}, [
  ...MIGRATIONS,
  { version: ${next}, name: "slow", sql: ${JSON.stringify(slow)} },
]);
`,
    ],
    { cwd: ROOT, stdio: "ignore" },
  );
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    // Every earlier migration is in; the slow one is running.
    while ((await stillRunning()).length === 0) {
      if (child.exitCode !== null) throw new Error(`the migrating process exited early`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    child.kill("SIGKILL");
    await exited;
  }

  const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
  const started = Date.now();
  try {
    const applied = await migrate(pool, schema, [
      ...MIGRATIONS,
      { version: next, name: "slow", sql: "CREATE TABLE cut_off (x int)" },
    ]);
    expect(applied).toBe(1);
  } finally {
    await pool.end();
  }
  // Behind the killed statement it would have waited for the rest of its minute.
  expect(Date.now() - started).toBeLessThan(15_000);
  expect(await stillRunning()).toEqual([]);
  const ledger = await adminQuery(
    `SELECT version FROM ${schema}.hookline_migrations WHERE version >= $1`,
    [next - 1],
  );
  expect(ledger.map((r) => Number(r.version))).toEqual([next - 1, next]);
}, 40_000);
