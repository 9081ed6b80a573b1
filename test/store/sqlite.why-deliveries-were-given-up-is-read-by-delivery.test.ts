/**
 * Why a page of a message's deliveries was given up on (`deadLetterReasons`, each destination's
 * `delivery.reason`) is read through the records' index by delivery: the page's records alone,
 * however many the message has (one given up at 10,000 endpoints has as many); its
 * tombstones through their index by message; and a replay's history, for why it ended unsent,
 * through the history's index by delivery.
 */
import Database from "better-sqlite3";
import { join } from "node:path";
import { expect, it } from "vitest";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { runStatementsRecorded, sqlitePlan } from "./recorded-statements.js";

const cleanup = useCleanup();

it("reads the reasons of the deliveries asked for through the records' index by delivery", async () => {
  const path = join(tempDir(cleanup, "hookline-plans-"), "hookline.db");
  const store = new SqliteStore({ path, synchronous: "normal" });
  cleanup.push(() => store.close());
  const ran = runStatementsRecorded(cleanup);
  await store.deadLetterReasons("msg_01KAAAAAAAAAAAAAAAAAAAAAAA", [
    "dlv_01KBBBBBBBBBBBBBBBBBBBBBBB",
    "dlv_01KCCCCCCCCCCCCCCCCCCCCCCC",
  ]);
  ran.stop();

  const asked = [...ran.sources].filter((sql) => /FROM dead_letters\b/.test(sql));
  expect(asked).toHaveLength(1);
  const db = new Database(path, { readonly: true });
  cleanup.push(async () => void db.close());
  const reads = sqlitePlan(db, asked[0]!).filter((step) => /^(SCAN|SEARCH) dead_letter/.test(step));
  expect(reads).toHaveLength(3);
  expect(reads[0]).toMatch(
    /^SEARCH dead_letters USING INDEX sqlite_autoindex_dead_letters_\d \(delivery_id=\?\)$/,
  );
  expect(reads[1]).toBe(
    "SEARCH dead_letter_overflow USING INDEX dead_letter_overflow_by_message (message_id=?)",
  );
  expect(reads[2]).toBe(
    "SEARCH dead_letter_events USING INDEX dead_letter_events_by_delivery (delivery_id=?)",
  );
});
