/**
 * `hookline store copy` refuses, naming why and writing nothing, what a user would not want it to
 * do: copy a store a hookline is still serving, merge into a schema that holds hookline data (or
 * one a hookline runs on), copy a store whose sealed values the keys given cannot open or that
 * another version of hookline wrote, or go to something that is not a PostgreSQL URL.
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
import { aSqliteDataDir, copyToSchema, runStoreCopy } from "../support/store-copy.js";

const cleanup = useCleanup();

it("refuses a schema that holds hookline data, naming what it holds, and writes nothing", async () => {
  const { dir } = await aSqliteDataDir(cleanup);
  const schema = freshSchemaName();
  const there = await aSharedStore(cleanup, schema);
  await there.createApplication(anApplication({ id: "app_already_there" }));

  const run = await copyToSchema(dir, schema);
  expect(run.failure?.message).toBe(
    `the PostgreSQL schema "${schema}" already holds hookline data: applications (1 rows); the copy writes only into a schema without any (it never merges), and wrote nothing. Name another with --schema, or drop this one (DROP SCHEMA ${schema} CASCADE) if nothing in it is to be kept`,
  );
  const apps = await adminQuery(`SELECT id FROM ${schema}.applications`);
  expect(apps).toEqual([{ id: "app_already_there" }]);
  for (const t of ["endpoints", "messages", "deliveries"]) {
    expect(await adminQuery(`SELECT 1 FROM ${schema}.${t}`)).toEqual([]);
  }
});

it("refuses a schema a hookline is running on, even with nothing in it yet, and names the token it leaves once stopped", async () => {
  const { dir } = await aSqliteDataDir(cleanup);
  const schema = aSchemaName(cleanup);
  const running = await startHookline({
    env: { DATABASE_URL: TEST_DATABASE_URL, HOOKLINE_PG_SCHEMA: schema },
  });
  cleanup.push(() => running.stop());

  const run = await copyToSchema(dir, schema);
  expect(run.failure?.message).toMatch(
    new RegExp(
      `^the PostgreSQL schema "${schema}" already holds hookline data: .*a running hookline \\(worker wkr_`,
    ),
  );
  expect(await adminQuery(`SELECT 1 FROM ${schema}.messages`)).toEqual([]);

  // Stopped, it leaves its admin token behind, which the refusal says is the likely reason.
  await running.stop();
  const again = await copyToSchema(dir, schema);
  expect(again.failure?.message).toContain(
    `already holds hookline data: api_tokens (1 rows) (a hookline started on a schema registers its admin token there: was one started on it?); `,
  );
  expect(await adminQuery(`SELECT 1 FROM ${schema}.messages`)).toEqual([]);
});

it("refuses while a hookline serves the data dir, and leaves the schema unmade", async () => {
  const running = await startHookline();
  cleanup.push(() => running.stop());
  const schema = aSchemaName(cleanup);

  const run = await runStoreCopy({ HOOKLINE_DATA_DIR: running.dataDir }, [
    "--to",
    TEST_DATABASE_URL,
    "--schema",
    schema,
  ]);
  expect(run.failure?.message).toBe(
    `HOOKLINE_DATA_DIR ${running.dataDir} is in use by a running hookline: stop it first (SIGTERM), so that nothing it accepts is left behind in SQLite; nothing was copied`,
  );
  expect(await schemaExists(schema)).toBe(false);
});

it("refuses a store whose secrets the keys given cannot open, naming the key it needs", async () => {
  const { dir } = await aSqliteDataDir(cleanup, { key: randomBytes(32) });
  const schema = aSchemaName(cleanup);

  const run = await runStoreCopy(
    { HOOKLINE_DATA_DIR: dir, HOOKLINE_ENCRYPTION_KEY: randomBytes(32).toString("base64") },
    ["--to", TEST_DATABASE_URL, "--schema", schema],
  );
  expect(run.failure?.message).toMatch(
    /^a stored value was encrypted with key [0-9a-f]{8}, which is not configured/,
  );
  expect(await schemaExists(schema)).toBe(false);
});

it("refuses a destination that is not a PostgreSQL URL, and a schema name it cannot use", async () => {
  const { dir } = await aSqliteDataDir(cleanup);
  const bad = await runStoreCopy({ HOOKLINE_DATA_DIR: dir }, ["--to", "mysql://db/hookline"]);
  expect(bad.failure?.message).toBe("--to must be a postgres:// URL");
  const unparsed = await runStoreCopy({ HOOKLINE_DATA_DIR: dir }, [
    "--to",
    "postgres://u:p@ss@db:port/x",
  ]);
  expect(unparsed.failure?.message).toMatch(/^--to is not a valid URL: check its host and port/);
  const schema = await runStoreCopy({ HOOKLINE_DATA_DIR: dir }, [
    "--to",
    TEST_DATABASE_URL,
    "--schema",
    "Hook-Line",
  ]);
  expect(schema.failure?.message).toMatch(/^--schema must be a schema name of lower-case letters/);
});

it("refuses a data dir with no store in it, and a server it cannot reach, saying nothing was written", async () => {
  const empty = tempDir(cleanup, "hookline-copy-empty-");
  const none = await runStoreCopy({ HOOKLINE_DATA_DIR: empty }, ["--to", TEST_DATABASE_URL]);
  expect(none.failure?.message).toBe(
    `HOOKLINE_DATA_DIR ${empty} holds no hookline store (no hookline.db)`,
  );
  const { dir } = await aSqliteDataDir(cleanup);
  const away = await runStoreCopy({ HOOKLINE_DATA_DIR: dir }, [
    "--to",
    "postgres://postgres@127.0.0.1:1/test",
  ]);
  expect(away.failure?.message).toMatch(
    /^cannot connect to the PostgreSQL database \(--to\): .*ECONNREFUSED.*; nothing was written$/,
  );
});

it("refuses a SQLite file at another schema version than this hookline's, saying what to do", async () => {
  const { dir } = await aSqliteDataDir(cleanup);
  const file = join(dir, "hookline.db");
  const ledger = (sql: string) => {
    const db = new Database(file);
    db.exec(sql);
    db.close();
  };
  const schema = aSchemaName(cleanup);

  const [current, previous] = MIGRATIONS.map((m) => m.version).reverse();
  ledger(`DELETE FROM hookline_migrations WHERE version = ${current}`);
  const older = await copyToSchema(dir, schema);
  expect(older.failure?.message).toBe(
    `the SQLite database ${file} is at schema version ${previous}, this hookline's is ${current}: start this version of hookline on it once (it brings the file up to date as it opens it), stop it, then copy`,
  );
  ledger(`INSERT INTO hookline_migrations VALUES (${current}, 'x', 0), (9999, 'later', 0)`);
  const newer = await copyToSchema(dir, schema);
  expect(newer.failure?.message).toBe(
    `the SQLite database ${file} was migrated by a newer hookline (schema version 9999; this version knows up to ${current}): copy it with that version`,
  );
  expect(await schemaExists(schema)).toBe(false);
});
