/**
 * SQLite reads an endpoint's recent attempts (the endpoint pages' charts) through the endpoint's
 * index from the first id of the window on, not by their time alone: that read every attempt the
 * endpoint ever had, 0.2 s for an endpoint with 75,000 attempts, once per listed endpoint at each
 * refresh of the endpoints page.
 */
import Database from "better-sqlite3";
import { join } from "node:path";
import { expect, it } from "vitest";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { runStatementsRecorded, sqlitePlan } from "./recorded-statements.js";
import { anEndpointWithHistory, readRecentBuckets, readsByTime } from "./recent-reads.js";

const cleanup = useCleanup();

it("reads an endpoint's recent attempts from the window's first id on", async () => {
  const path = join(tempDir(cleanup, "hookline-plans-"), "hookline.db");
  const store = new SqliteStore({ path, synchronous: "normal" });
  cleanup.push(() => store.close());
  const { endpointId } = await anEndpointWithHistory(store);
  const ran = runStatementsRecorded(cleanup);
  await readRecentBuckets(store, endpointId);
  ran.stop();

  const asked = [...ran.sources].filter(readsByTime);
  expect(asked).toHaveLength(1);
  const db = new Database(path, { readonly: true });
  cleanup.push(async () => void db.close());
  const reads = asked.flatMap((sql) => sqlitePlan(db, sql)).filter((d) => / attempts\b/.test(d));
  expect(reads).toEqual([
    expect.stringMatching(
      /^SEARCH attempts USING INDEX attempts_by_endpoint \(endpoint_id=\? AND id>\?\)/,
    ),
  ]);
});
