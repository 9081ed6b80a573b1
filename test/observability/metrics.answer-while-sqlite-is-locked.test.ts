/**
 * /metrics on SQLite while another process holds the database's write lock (a backup tool, an
 * operator's `sqlite3` shell left in a transaction): hookline cannot write, but in WAL mode it
 * still reads, so the page answers 200 with the store's gauges and `hookline_store_up 1`.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { scrape } from "../support/metrics.js";

let h: TestHookline;
beforeAll(async () => {
  h = await startHookline();
});
afterAll(async () => {
  await h.stop();
});

describe("/metrics while another process holds SQLite's write lock", () => {
  it("answers with the store's gauges, read as usual", async () => {
    expect((await scrape(h.url, h.token)).get("hookline_store_up")).toBe(1);
    const other = new Database(join(h.dataDir, "hookline.db"));
    try {
      other.exec("BEGIN EXCLUSIVE");
      const s = await scrape(h.url, h.token);
      expect(s.get("hookline_store_up")).toBe(1);
      expect(s.get("hookline_queue_pending_deliveries")).toBe(0);
      expect(s.get("hookline_dlq_depth")).toBe(0);
    } finally {
      other.close();
    }
  });
});
