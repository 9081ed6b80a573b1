/**
 * SQLite's statements that pick API tokens by application (its list, expire-all's pages, the
 * application's deletion) or by expiry (retention) search an index: none walks the whole table.
 * Each statement the store prepares is recorded, and those naming either column are asked for
 * their plan. Before migration 14 every one of them read every token there was.
 */
import Database from "better-sqlite3";
import { join } from "node:path";
import { expect, it, vi } from "vitest";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { lookUpTokensEveryWay, picksTokens } from "./token-lookups.js";

const cleanup = useCleanup();

it("searches an index for an application's tokens and for expired ones", async () => {
  const prepared = new Set<string>();
  const prepare = Database.prototype.prepare;
  const spy = vi.spyOn(Database.prototype, "prepare").mockImplementation(function (
    this: Database.Database,
    sql: string,
  ) {
    prepared.add(sql);
    return prepare.call(this, sql);
  });
  cleanup.push(async () => spy.mockRestore());
  const path = join(tempDir(cleanup, "hookline-token-plans-"), "hookline.db");
  const store = new SqliteStore({ path, synchronous: "normal" });
  cleanup.push(() => store.close());
  await lookUpTokensEveryWay(store);
  spy.mockRestore();

  const asked = [...prepared].filter(picksTokens);
  // Three lists (a first page, a next one, the revoked too), the prune and the deletion.
  expect(asked.length).toBeGreaterThanOrEqual(5);
  const db = new Database(path, { readonly: true });
  cleanup.push(async () => void db.close());
  // SCAN walks the table (or an index of it) from end to end; SEARCH looks up a range, but one
  // by id alone (a page after an iterator) walks every later token of every application.
  const walking = asked
    .map((sql) => ({ sql: sql.replace(/\s+/g, " "), walks: scansOf(db, sql) }))
    .filter((s) => s.walks.length > 0);
  expect(walking).toEqual([]);
});

/** The steps of `sql`'s plan that read api_tokens other than by application, expiry or rowid. */
function scansOf(db: Database.Database, sql: string): string[] {
  // A plan needs no values, but a statement wants one for each placeholder.
  const holes = (sql.match(/\?/g) ?? []).length;
  const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...Array<null>(holes).fill(null));
  return (plan as { detail: string }[])
    .map((p) => p.detail)
    .filter((d) => / api_tokens\b/.test(d) && !/^SEARCH .*\((app_id=|expires_at<|rowid=)/.test(d));
}
