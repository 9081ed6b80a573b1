/**
 * SQLite counts an endpoint's messages by state (its stats, on the endpoint pages every 10 s)
 * from the application's first message of the window on, then each message's own deliveries.
 * Through the endpoint's deliveries it read every delivery the endpoint ever had, whatever the
 * window: 0.3–0.9 s for the last day (6,600 messages) of an endpoint with 200,000 deliveries over
 * 30 days, where it takes 15–45 ms now (both on a loaded two-core machine).
 */
import Database from "better-sqlite3";
import { join } from "node:path";
import { expect, it } from "vitest";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { runStatementsRecorded, sqlitePlan } from "./recorded-statements.js";
import { anEndpointWithHistory, readRecentStates } from "./recent-reads.js";

const cleanup = useCleanup();

it("counts an endpoint's messages of a window from the window's first message on", async () => {
  const path = join(tempDir(cleanup, "hookline-plans-"), "hookline.db");
  const store = new SqliteStore({ path, synchronous: "normal" });
  cleanup.push(() => store.close());
  const ids = await anEndpointWithHistory(store);
  const ran = runStatementsRecorded(cleanup);
  await readRecentStates(store, ids);
  ran.stop();

  const asked = [...ran.sources].filter((sql) => /GROUP BY (d\.)?state\s*$/.test(sql));
  expect(asked).toHaveLength(1);
  const db = new Database(path, { readonly: true });
  cleanup.push(async () => void db.close());
  const reads = sqlitePlan(db, asked[0]!).filter((d) => /^(SEARCH|SCAN) (m|d) /.test(d));
  expect(reads).toEqual([
    expect.stringMatching(/^SEARCH m USING INDEX messages_by_app \(app_id=\? AND id>\?\)/),
    expect.stringMatching(/^SEARCH d USING INDEX deliveries_by_message \(message_id=\?\)/),
  ]);
});
