/**
 * An endpoint's "Failed attempts" list (the endpoint page's filter, `status=2`) is read through an
 * index of failed attempts alone. Through the endpoint's index of every attempt, it walked all of
 * an endpoint's successes to find a page of failures, at every refresh of its page, before
 * migration 16.
 */
import Database from "better-sqlite3";
import { join } from "node:path";
import { expect, it } from "vitest";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { runStatementsRecorded, sqlitePlan } from "./recorded-statements.js";

const cleanup = useCleanup();

it("reads an endpoint's failed attempts through the index of failed attempts", async () => {
  const path = join(tempDir(cleanup, "hookline-plans-"), "hookline.db");
  const store = new SqliteStore({ path, synchronous: "normal" });
  cleanup.push(() => store.close());
  const ran = runStatementsRecorded(cleanup);
  const page = { appId: "app_x", endpointId: "ep_x", outcome: "fail", limit: 20 } as const;
  await store.listAttempts(page);
  await store.listAttempts({ ...page, iterator: "atmpt_x" });
  ran.stop();

  const asked = [...ran.sources].filter((sql) => /FROM attempts/.test(sql));
  expect(asked).toHaveLength(2);
  const db = new Database(path, { readonly: true });
  cleanup.push(async () => void db.close());
  for (const sql of asked) {
    expect(sqlitePlan(db, sql)).toEqual([
      expect.stringMatching(/^SEARCH attempts USING INDEX attempts_failed_by_endpoint \(/),
    ]);
  }
});
