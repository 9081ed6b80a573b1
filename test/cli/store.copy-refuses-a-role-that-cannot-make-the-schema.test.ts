/**
 * The copy makes its schema if missing and migrates it, which needs CREATE on the database, or on
 * a schema made for the role. A role without it failed at the migration, after the dry run had
 * said the copy would go through, with PostgreSQL's "permission denied" as a copy that failed and
 * was rolled back. Both now refuse it before anything is written, naming the right missing and
 * how to give it; a schema the role owns, without CREATE on the database, is copied into. A
 * schema whose tables another role made, which this one cannot read, fails both at their first
 * look: that was said as a copy written in one transaction and rolled back, by the dry run too,
 * when nothing had been written; both now say nothing was.
 */
import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import { useCleanup } from "../support/cleanup.js";
import { adminQuery, aSchemaName, schemaExists, TEST_DATABASE_URL } from "../support/postgres.js";
import { aSqliteDataDir, spawnStoreCopy } from "../support/store-copy.js";

const cleanup = useCleanup();

/** A login role with no rights of its own, dropped after the test; returns it and its URL. */
async function aRole(): Promise<{ role: string; url: string }> {
  const role = `hl_test_copier_${randomBytes(4).toString("hex")}`;
  await adminQuery(`CREATE ROLE ${role} LOGIN`);
  cleanup.push(async () => {
    await adminQuery(`DROP OWNED BY ${role}`);
    await adminQuery(`DROP ROLE ${role}`);
  });
  const url = new URL(TEST_DATABASE_URL);
  url.username = role;
  url.password = "";
  return { role, url: url.toString() };
}

it("refuses a role that cannot make the schema, dry or not, and copies into one it owns", async () => {
  const { dir } = await aSqliteDataDir(cleanup, { messages: 2 });
  const { role, url } = await aRole();
  const database = new URL(TEST_DATABASE_URL).pathname.slice(1);
  const schema = aSchemaName(cleanup);
  const env = { HOOKLINE_DATA_DIR: dir };
  const args = ["--to", url, "--schema", schema];

  // No schema, and no CREATE on the database to make it.
  const dry = await spawnStoreCopy(env, [...args, "--dry-run"]);
  const real = await spawnStoreCopy(env, args);
  expect(dry.code).toBe(1);
  expect(real.code).toBe(1);
  expect(dry.err).toBe(real.err);
  expect(real.err).toBe(
    `hookline: the PostgreSQL role ${role} cannot make the schema "${schema}": it has no CREATE on the database ${database}. Make the schema for it (CREATE SCHEMA ${schema} AUTHORIZATION ${role}) or grant it CREATE on the database; nothing was written\n`,
  );
  expect(await schemaExists(schema)).toBe(false);

  // A schema made for someone else, with hookline's tables in it: the role may not even look.
  await adminQuery(`CREATE SCHEMA ${schema}`);
  await adminQuery(`CREATE TABLE ${schema}.hookline_migrations (version INTEGER PRIMARY KEY)`);
  const dryBlind = await spawnStoreCopy(env, [...args, "--dry-run"]);
  const realBlind = await spawnStoreCopy(env, args);
  expect([dryBlind.code, realBlind.code]).toEqual([1, 1]);
  expect(dryBlind.err).toBe(realBlind.err);
  expect(realBlind.err).toContain(
    `cannot make hookline's tables in the schema "${schema}": it has no USAGE or CREATE on it.`,
  );
  await adminQuery(`DROP TABLE ${schema}.hookline_migrations`);

  // Which it may look into, but not make tables in.
  await adminQuery(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
  const dryThere = await spawnStoreCopy(env, [...args, "--dry-run"]);
  const realThere = await spawnStoreCopy(env, args);
  expect(dryThere.code).toBe(1);
  expect(realThere.code).toBe(1);
  expect(dryThere.err).toBe(realThere.err);
  expect(realThere.err).toBe(
    `hookline: the PostgreSQL role ${role} cannot make hookline's tables in the schema "${schema}": it has no CREATE on it. Give it the schema (ALTER SCHEMA ${schema} OWNER TO ${role}) or name another with --schema; nothing was written\n`,
  );
  expect(await adminQuery(`SELECT 1 FROM pg_tables WHERE schemaname = $1`, [schema])).toEqual([]);

  // Given the schema, the least-privilege set-up: the dry run says go, and the copy goes.
  await adminQuery(`ALTER SCHEMA ${schema} OWNER TO ${role}`);
  const dryOwned = await spawnStoreCopy(env, [...args, "--dry-run"]);
  expect(dryOwned.code, dryOwned.err).toBe(0);
  const copied = await spawnStoreCopy(env, args);
  expect(copied.code, copied.err).toBe(0);
  expect(await adminQuery(`SELECT count(*)::int AS n FROM ${schema}.messages`)).toEqual([{ n: 2 }]);
}, 60_000);

it("says nothing was written when it cannot read what another role made, dry or not", async () => {
  const { dir } = await aSqliteDataDir(cleanup, { messages: 2 });
  const { role, url } = await aRole();
  const schema = aSchemaName(cleanup);
  // A schema another role made and migrated, its tables that role's: this one may make tables
  // there, but not read the ledger. The copy fails at its first look, before writing anything.
  await adminQuery(`CREATE SCHEMA ${schema}`);
  await adminQuery(
    `CREATE TABLE ${schema}.hookline_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`,
  );
  await adminQuery(`GRANT USAGE, CREATE ON SCHEMA ${schema} TO ${role}`);
  const args = ["--to", url, "--schema", schema];

  const dry = await spawnStoreCopy({ HOOKLINE_DATA_DIR: dir }, [...args, "--dry-run"]);
  const real = await spawnStoreCopy({ HOOKLINE_DATA_DIR: dir }, args);
  expect([dry.code, real.code]).toEqual([1, 1]);
  expect(dry.err).toBe(real.err);
  // Not "written in one transaction, rolled back": nothing was, and a dry run never writes.
  expect(real.err).toBe(
    `hookline: the copy cannot go ahead: permission denied for table hookline_migrations; nothing was written to the PostgreSQL schema "${schema}", and the SQLite store is unchanged\n`,
  );
  expect(
    await adminQuery(`SELECT tablename FROM pg_tables WHERE schemaname = $1`, [schema]),
  ).toEqual([{ tablename: "hookline_migrations" }]);
}, 60_000);
