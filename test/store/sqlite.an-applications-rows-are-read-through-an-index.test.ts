/**
 * SQLite's statements that pick an application's rows (its tokens, its history as it is deleted)
 * or expired tokens look them up through an index: none walks a whole table, nor an index from
 * a token's id onwards. Each statement the store prepares is recorded, and those naming an
 * application or an expiry are asked for their plan. Deleting an application read every
 * attempt and delivery there was, and every call on tokens every token, before migration 14.
 */
import Database from "better-sqlite3";
import { join } from "node:path";
import { expect, it } from "vitest";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { anApplicationWithHistory, picksRows, readThenDelete } from "./application-reads.js";
import { runStatementsRecorded, sqlitePlan } from "./recorded-statements.js";

const cleanup = useCleanup();

it("reads an application's rows and expired tokens through an index", async () => {
  const path = join(tempDir(cleanup, "hookline-plans-"), "hookline.db");
  const store = new SqliteStore({ path, synchronous: "normal" });
  cleanup.push(() => store.close());
  const app = await anApplicationWithHistory(store);
  const ran = runStatementsRecorded(cleanup);
  await readThenDelete(store, app);
  ran.stop();

  const asked = [...ran.sources].filter(picksRows);
  expect(asked.some((sql) => /DELETE FROM attempts/.test(sql))).toBe(true);
  const db = new Database(path, { readonly: true });
  cleanup.push(async () => void db.close());
  const walking = asked
    .map((sql) => ({ sql: sql.replace(/\s+/g, " "), walks: walksOf(db, sql) }))
    .filter((s) => s.walks.length > 0);
  expect(walking).toEqual([]);
});

/**
 * The steps of `sql`'s plan that walk a table or an index end to end (SCAN), and searches of
 * api_tokens by id alone, which walk every later token of every application.
 */
function walksOf(db: Database.Database, sql: string): string[] {
  return sqlitePlan(db, sql).filter(
    (d) =>
      (/^SCAN /.test(d) && !/^SCAN (CONSTANT ROW|json_each|\(subquery)/.test(d)) ||
      (/^SEARCH api_tokens /.test(d) && !/\((app_id=|expires_at<|rowid=)/.test(d)),
  );
}
