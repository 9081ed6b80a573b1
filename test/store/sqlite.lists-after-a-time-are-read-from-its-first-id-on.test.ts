/**
 * SQLite reads lists of messages and attempts created after a time (`after`, in either order)
 * through their index from the first id made after it on. By time alone an ascending list walked
 * every older message or attempt of the application or endpoint before its first match (0.15 s
 * and 0.3 s for the last hour of 75,000), and a descending one every newer.
 */
import Database from "better-sqlite3";
import { join } from "node:path";
import { expect, it } from "vitest";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { runStatementsRecorded, sqlitePlan } from "./recorded-statements.js";
import { anEndpointWithHistory, readListsAfter, readsByTime } from "./recent-reads.js";

const cleanup = useCleanup();

it("reads messages and attempts after a time from its first id on", async () => {
  const path = join(tempDir(cleanup, "hookline-plans-"), "hookline.db");
  const store = new SqliteStore({ path, synchronous: "normal" });
  cleanup.push(() => store.close());
  const ids = await anEndpointWithHistory(store);
  const ran = runStatementsRecorded(cleanup);
  await readListsAfter(store, ids);
  ran.stop();

  const asked = [...ran.sources].filter(readsByTime);
  // The application's messages, the endpoint's messages and its attempts, in either order.
  expect(asked).toHaveLength(6);
  const db = new Database(path, { readonly: true });
  cleanup.push(async () => void db.close());
  const reads = asked.flatMap((sql) =>
    sqlitePlan(db, sql).filter((d) => /^(SEARCH|SCAN) (messages|m|attempts) /.test(d)),
  );
  expect(reads).toHaveLength(6);
  expect(
    reads.filter((d) => !/ USING INDEX \w+ \((app_id|endpoint_id)=\? AND id>\?\)/.test(d)),
  ).toEqual([]);
});
