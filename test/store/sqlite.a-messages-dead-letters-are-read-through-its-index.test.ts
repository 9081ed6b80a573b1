/**
 * The dead-letter list filtered to one message (`message_id`, as the console's message page asks
 * for it) is read through the index by message, whatever other filters come with it. Named with
 * its application or endpoint, SQLite walked their index in id order: every record the
 * application or endpoint ever had, for a message's handful.
 */
import Database from "better-sqlite3";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { DeadLetterQuery } from "../../src/store/port.js";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { runStatementsRecorded, sqlitePlan } from "./recorded-statements.js";

const cleanup = useCleanup();

it("reads a message's dead-letter records through the index by message", async () => {
  const path = join(tempDir(cleanup, "hookline-plans-"), "hookline.db");
  const store = new SqliteStore({ path, synchronous: "normal" });
  cleanup.push(() => store.close());
  const messageId = "msg_01KBBBBBBBBBBBBBBBBBBBBBBB";
  const filters: Omit<DeadLetterQuery, "limit">[] = [
    { messageId },
    { messageId, appId: "app_x" },
    { messageId, endpointId: "ep_x" },
    { messageId, appId: "app_x", endpointId: "ep_x", states: ["open"], failureClass: "exhausted" },
  ];
  const ran = runStatementsRecorded(cleanup);
  for (const f of filters) {
    for (const order of ["ascending", "descending"] as const) {
      await store.listDeadLetters({ ...f, limit: 50, order });
      await store.listDeadLetters({ ...f, limit: 50, order, iterator: "dlq_x" });
    }
  }
  ran.stop();

  const asked = [...ran.sources].filter((sql) => /FROM dead_letters/.test(sql));
  expect(asked).toHaveLength(filters.length * 4);
  const db = new Database(path, { readonly: true });
  cleanup.push(async () => void db.close());
  for (const sql of asked) {
    expect(sqlitePlan(db, sql)[0], sql).toMatch(
      /^SEARCH dead_letters USING INDEX dead_letters_by_message \(message_id=\?\)$/,
    );
  }
});
