/**
 * `hookline store copy --dry-run` says whether the copy would go through: each situation the copy
 * refuses, the dry run refuses too, with the same exit code and the same message, and leaves the
 * destination as it was.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect, it } from "vitest";
import { MIGRATIONS } from "../../src/store/sqlite/migrations.js";
import { anApplication } from "../store/behaviour/fixtures.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { startHookline } from "../support/hookline.js";
import {
  adminQuery,
  aSchemaName,
  aSharedStore,
  freshSchemaName,
  schemaExists,
  TEST_DATABASE_URL,
} from "../support/postgres.js";
import { aSqliteDataDir, spawnStoreCopy, type CopyProcessRun } from "../support/store-copy.js";

const cleanup = useCleanup();

/**
 * The dry run, `checkAfter` (that it wrote nothing), then the copy: each refused alike. Returns
 * the message both gave.
 */
async function refusedAlike(
  env: Record<string, string>,
  args: string[],
  checkAfter: () => Promise<void> = async () => {},
): Promise<string> {
  const dry = await spawnStoreCopy(env, [...args, "--dry-run"]);
  await checkAfter();
  const real = await spawnStoreCopy(env, args);
  await checkAfter();
  const said = (run: CopyProcessRun) => ({ code: run.code, err: run.err });
  expect(real.code).toBe(1);
  expect(said(dry)).toEqual(said(real));
  expect(dry.out).not.toContain("would go through");
  return dry.err;
}

it("refuses while a hookline serves the data dir", async () => {
  const running = await startHookline();
  cleanup.push(() => running.stop());
  const schema = aSchemaName(cleanup);

  const err = await refusedAlike(
    { HOOKLINE_DATA_DIR: running.dataDir },
    ["--to", TEST_DATABASE_URL, "--schema", schema],
    async () => expect(await schemaExists(schema)).toBe(false),
  );
  expect(err).toBe(
    `hookline: HOOKLINE_DATA_DIR ${running.dataDir} is in use by a running hookline: stop it first (SIGTERM), so that nothing it accepts is left behind in SQLite; nothing was copied\n`,
  );
}, 60_000);

it("refuses a schema that holds hookline data, and one a hookline runs on", async () => {
  const { dir } = await aSqliteDataDir(cleanup);
  const schema = freshSchemaName();
  const there = await aSharedStore(cleanup, schema);
  await there.createApplication(anApplication({ id: "app_already_there" }));

  const err = await refusedAlike(
    { HOOKLINE_DATA_DIR: dir },
    ["--to", TEST_DATABASE_URL, "--schema", schema],
    async () => {
      expect(await adminQuery(`SELECT id FROM ${schema}.applications`)).toEqual([
        { id: "app_already_there" },
      ]);
      expect(await adminQuery(`SELECT 1 FROM ${schema}.messages`)).toEqual([]);
    },
  );
  expect(err).toMatch(
    new RegExp(
      `^hookline: the PostgreSQL schema "${schema}" already holds hookline data: applications \\(1 rows\\); `,
    ),
  );

  // Empty, but a process beats there (its next beat is still to come).
  const live = freshSchemaName();
  await aSharedStore(cleanup, live);
  const beat = Date.now() + 3_600_000;
  await adminQuery(`INSERT INTO ${live}.workers VALUES ('wkr_elsewhere', 'all', 'db-2', $1, $1)`, [
    beat,
  ]);
  const busy = await refusedAlike(
    { HOOKLINE_DATA_DIR: dir },
    ["--to", TEST_DATABASE_URL, "--schema", live],
    async () => expect(await adminQuery(`SELECT 1 FROM ${live}.messages`)).toEqual([]),
  );
  expect(busy).toContain("already holds hookline data: a running hookline (worker wkr_elsewhere)");
}, 60_000);

it("refuses a schema a newer hookline migrated, before migrating anything", async () => {
  const { dir } = await aSqliteDataDir(cleanup);
  const schema = freshSchemaName();
  await aSharedStore(cleanup, schema);
  await adminQuery(`INSERT INTO ${schema}.hookline_migrations VALUES (9999, 'later', 0)`);
  const ledger = () => adminQuery(`SELECT version FROM ${schema}.hookline_migrations`);
  const before = await ledger();

  const err = await refusedAlike(
    { HOOKLINE_DATA_DIR: dir },
    ["--to", TEST_DATABASE_URL, "--schema", schema],
    async () => expect(await ledger()).toEqual(before),
  );
  expect(err).toMatch(
    new RegExp(
      `^hookline: the PostgreSQL schema "${schema}" was migrated by a newer hookline \\(schema version 9999;`,
    ),
  );
}, 60_000);

it("refuses a store the keys given cannot open, naming the key it needs", async () => {
  const { dir } = await aSqliteDataDir(cleanup, { key: randomBytes(32) });
  const schema = aSchemaName(cleanup);

  const err = await refusedAlike(
    { HOOKLINE_DATA_DIR: dir, HOOKLINE_ENCRYPTION_KEY: randomBytes(32).toString("base64") },
    ["--to", TEST_DATABASE_URL, "--schema", schema],
    async () => expect(await schemaExists(schema)).toBe(false),
  );
  expect(err).toMatch(
    /^hookline: a stored value was encrypted with key [0-9a-f]{8}, which is not configured/,
  );
}, 60_000);

it("refuses a SQLite file at another version, and one with a table it does not know", async () => {
  const { dir } = await aSqliteDataDir(cleanup);
  const file = join(dir, "hookline.db");
  const change = (sql: string) => {
    const db = new Database(file);
    db.exec(sql);
    db.close();
  };
  const schema = aSchemaName(cleanup);
  const args = ["--to", TEST_DATABASE_URL, "--schema", schema];
  const unmade = async () => expect(await schemaExists(schema)).toBe(false);

  const [current, previous] = MIGRATIONS.map((m) => m.version).reverse();
  change(`DELETE FROM hookline_migrations WHERE version = ${current}`);
  const older = await refusedAlike({ HOOKLINE_DATA_DIR: dir }, args, unmade);
  expect(older).toContain(`is at schema version ${previous}, this hookline's is ${current}`);

  change(`INSERT INTO hookline_migrations VALUES (${current}, 'x', 0)`);
  change("CREATE TABLE lost_and_found (id INTEGER)");
  const unknown = await refusedAlike({ HOOKLINE_DATA_DIR: dir }, args, unmade);
  expect(unknown).toBe(
    "hookline: the SQLite database has tables this copy does not know how to move (lost_and_found); nothing was written\n",
  );
}, 60_000);

it("refuses a data dir with no store, and a server it cannot reach", async () => {
  const empty = tempDir(cleanup, "hookline-copy-empty-");
  const none = await refusedAlike({ HOOKLINE_DATA_DIR: empty }, ["--to", TEST_DATABASE_URL]);
  expect(none).toBe(
    `hookline: HOOKLINE_DATA_DIR ${empty} holds no hookline store (no hookline.db)\n`,
  );

  const { dir } = await aSqliteDataDir(cleanup);
  const away = await refusedAlike({ HOOKLINE_DATA_DIR: dir }, [
    "--to",
    "postgres://postgres@127.0.0.1:1/test",
  ]);
  expect(away).toMatch(
    /^hookline: cannot connect to the PostgreSQL database \(--to\): .*ECONNREFUSED/,
  );
}, 60_000);
