/**
 * SQLite's dead-letter summary finds the endpoints with nothing open but tombstones left among
 * those that ever overflowed, asking each whether a tombstone is left: it read every tombstone
 * (up to the depth cap's worth per endpoint; 30 ms for 65,000) on each load of the DLQ page.
 */
import Database from "better-sqlite3";
import { join } from "node:path";
import { expect, it } from "vitest";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { runStatementsRecorded, sqlitePlan } from "./recorded-statements.js";

const cleanup = useCleanup();

it("looks up tombstones by endpoint, never reading them all", async () => {
  const path = join(tempDir(cleanup, "hookline-plans-"), "hookline.db");
  const store = new SqliteStore({ path, synchronous: "normal" });
  cleanup.push(() => store.close());
  const ran = runStatementsRecorded(cleanup);
  await store.deadLetterSummary({});
  ran.stop();

  const asked = [...ran.sources].filter((sql) => /dead_letter_overflow/.test(sql));
  expect(asked).toHaveLength(1);
  const db = new Database(path, { readonly: true });
  cleanup.push(async () => void db.close());
  const tombstones = sqlitePlan(db, asked[0]!).filter((d) => / (dead_letter_overflow|t) /.test(d));
  expect(tombstones).toEqual([
    expect.stringMatching(/^SEARCH t (EXISTS )?USING .*\(endpoint_id=\?\)/),
  ]);
});
