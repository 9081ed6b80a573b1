/**
 * An operator who ran ANALYZE or `PRAGMA optimize` on hookline.db (SQLite's own advice for a
 * database kept a long time) left SQLite's statistics tables beside hookline's. They are SQLite's
 * bookkeeping for its query planner, not hookline's data: the copy moves the store without them.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect, it } from "vitest";
import { useCleanup } from "../support/cleanup.js";
import { adminQuery, aSchemaName, schemaExists } from "../support/postgres.js";
import { aSqliteDataDir, copyToSchema } from "../support/store-copy.js";

const cleanup = useCleanup();

it("copies a store SQLite gathered statistics on, leaving the statistics behind", async () => {
  const { dir, messageIds } = await aSqliteDataDir(cleanup, { messages: 3 });
  const db = new Database(join(dir, "hookline.db"));
  db.exec("ANALYZE");
  const stats = db
    .prepare("SELECT name FROM sqlite_master WHERE name LIKE 'sqlite_stat%' ORDER BY name")
    .all();
  db.close();
  expect(stats).toEqual([{ name: "sqlite_stat1" }, { name: "sqlite_stat4" }]);
  const schema = aSchemaName(cleanup);

  const run = await copyToSchema(dir, schema);

  expect(run.failure).toBeNull();
  expect(run.out).toMatch(/messages: +3\n/);
  const copied = await adminQuery(`SELECT id FROM ${schema}.messages ORDER BY id`);
  expect(copied.map((r) => r.id)).toEqual(messageIds);
});

it("still refuses a table that is neither hookline's nor SQLite's own, writing nothing", async () => {
  const { dir } = await aSqliteDataDir(cleanup);
  const db = new Database(join(dir, "hookline.db"));
  // What sqlite3's .recover leaves for the rows it could not place.
  db.exec("CREATE TABLE lost_and_found (rootpgno INTEGER, pgno INTEGER, nfield INTEGER)");
  db.close();
  const schema = aSchemaName(cleanup);

  const run = await copyToSchema(dir, schema);

  expect(run.failure?.message).toBe(
    "the SQLite database has tables this copy does not know how to move (lost_and_found); nothing was written",
  );
  expect(await schemaExists(schema)).toBe(false);
});
