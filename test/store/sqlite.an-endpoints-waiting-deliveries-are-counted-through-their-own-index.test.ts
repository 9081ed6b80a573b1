/**
 * The endpoint page's "Waiting now" (the stats' `pendingNow`) counts the endpoint's pending
 * deliveries through the index of pending deliveries by endpoint alone, and stops at its bound:
 * through the endpoint's index of every delivery it would walk the endpoint's whole history, and
 * unbounded an outage's backlog of millions, on SQLite's main thread every 10 s.
 */
import Database from "better-sqlite3";
import { join } from "node:path";
import { expect, it } from "vitest";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { runStatementsRecorded, sqlitePlan } from "./recorded-statements.js";

const cleanup = useCleanup();

it("counts an endpoint's waiting deliveries through the index of pending ones, bounded", async () => {
  const path = join(tempDir(cleanup, "hookline-plans-"), "hookline.db");
  const store = new SqliteStore({ path, synchronous: "normal" });
  cleanup.push(() => store.close());
  const ran = runStatementsRecorded(cleanup);
  await store.countWaitingDeliveries("ep_x", 10_000);
  ran.stop();

  const asked = [...ran.sources].filter((sql) => /FROM deliveries/.test(sql));
  expect(asked).toHaveLength(1);
  expect(asked[0]).toMatch(/LIMIT @atMost\s*\)/);
  const db = new Database(path, { readonly: true });
  cleanup.push(async () => void db.close());
  const plan = sqlitePlan(db, asked[0]!);
  // In the index's order: no sort of what it found before the limit.
  expect(plan.filter((d) => /TEMP B-TREE/.test(d))).toEqual([]);
  const reads = plan.filter((d) => /^(SEARCH|SCAN) deliveries /.test(d));
  expect(reads).toEqual([
    expect.stringMatching(
      /^SEARCH deliveries USING COVERING INDEX deliveries_pending_by_endpoint \(endpoint_id=\?\)$/,
    ),
  ]);
});
