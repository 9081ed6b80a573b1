/**
 * A reader holding its snapshot (a backup, a `sqlite3` shell left in a transaction) keeps the WAL
 * from starting over, so every commit meanwhile piles up in it. Once the reader lets go, the WAL
 * starts over, but SQLite reuses the file as it is: without a size limit it stays at its largest
 * for as long as commits keep coming, and a hookline under steady load is never idle long enough
 * for the checkpoint thread to empty it.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import Database from "better-sqlite3";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { accept, anApplication } from "./behaviour/fixtures.js";

const cleanup = useCleanup();

it("a WAL a long read grew goes back near its mark while commits keep coming", async () => {
  const path = join(tempDir(cleanup, "hookline-wal-limit-"), "hookline.db");
  // The thread's turn (and so its idle shrink) is out of reach: the writer checkpoints at its
  // mark, and only what happens while commits go on counts here.
  const store = new SqliteStore({
    path,
    synchronous: "normal",
    checkpoints: { everyMs: 600_000, walLimitPages: 64 },
  });
  const app = await store.createApplication(anApplication());
  const walBytes = () => (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);
  const write = async (n: number) => {
    for (let i = 0; i < n; i++) {
      await accept(store, app.id, { payload: Buffer.alloc(8192, i % 251) });
    }
  };

  const reader = new Database(path, { readonly: true });
  reader.prepare("BEGIN").run();
  reader.prepare("SELECT count(*) FROM messages").get();
  await write(600);
  expect(walBytes()).toBeGreaterThan(4 * 1024 * 1024);
  reader.prepare("COMMIT").run();
  reader.close();

  // Commits go on, with never a pause: the WAL starts over at the writer's mark (64 pages of
  // 4 KiB) and its file is cut back to twice that size when it does. Any other reader holds the
  // start-over back while it reads, the checkpoint thread included: it loads the schema on its
  // first statement, at nice 10, and on a machine loaded by other work that read once lasted
  // through 400 commits. So commits go on until the file is back near the mark, a bounded number
  // of them: only a WAL that stays large under steady commits fails.
  let written = 600;
  for (let round = 0; round < 20 && (round === 0 || walBytes() >= 1024 * 1024); round++) {
    await write(200);
    written += 200;
  }
  expect(walBytes()).toBeLessThan(1024 * 1024);
  const count = new Database(path, { readonly: true });
  expect(count.prepare("SELECT count(*) AS n FROM messages").get()).toEqual({ n: written });
  count.close();
  await store.close();
});
