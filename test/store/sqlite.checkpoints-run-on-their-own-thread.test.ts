/**
 * The SQLite WAL is checkpointed by a thread of its own (checkpointer.ts), so no commit waits for
 * the copy and its fsyncs; the writer keeps its own checkpoint at a high mark, which bounds the WAL.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { Checkpointer, type CheckpointSettings } from "../../src/store/sqlite/checkpointer.js";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { niceOf, threadIds } from "../support/threads.js";
import { accept, anApplication } from "./behaviour/fixtures.js";

const cleanup = useCleanup();

async function open(checkpoints?: CheckpointSettings) {
  const path = join(tempDir(cleanup, "hookline-ckpt-"), "hookline.db");
  const store = new SqliteStore({ path, synchronous: "normal", checkpoints });
  const app = await store.createApplication(anApplication());
  const size = (file: string) => (existsSync(file) ? statSync(file).size : 0);
  return {
    store,
    path,
    dbBytes: () => size(path),
    walBytes: () => size(`${path}-wal`),
    /** Commits `n` messages of 8 KiB, one transaction each: two or three pages apiece. */
    write: async (n: number) => {
      for (let i = 0; i < n; i++) {
        await accept(store, app.id, { payload: Buffer.alloc(8192, i % 251) });
      }
    },
  };
}

async function eventually(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error("not within the time allowed");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("SQLite checkpoints", () => {
  it("are made by their own thread while the writer never checkpoints", async () => {
    // The writer's mark is out of reach: only the thread can move pages into the file.
    const threadsBefore = new Set(threadIds());
    const db = await open({ everyMs: 20, walLimitPages: 1_000_000 });
    const before = db.dbBytes();
    await db.write(100);
    await eventually(() => db.dbBytes() > before + 100 * 8192);
    // A thread that steps aside for the main thread, which answers the API.
    expect(
      threadIds()
        .filter((t) => !threadsBefore.has(t))
        .map(niceOf),
    ).toContain(10);
    expect(niceOf(String(process.pid))).toBe(0);
    await db.store.close();
  });

  it("are not made at all below SQLite's own mark without the thread (the difference)", async () => {
    const db = await open();
    const before = db.dbBytes();
    // About 600 pages: below the 1,000 at which SQLite's writer checkpoints by default.
    await db.write(100);
    await new Promise((r) => setTimeout(r, 300));
    expect(db.dbBytes()).toBe(before);
    expect(db.walBytes()).toBeGreaterThan(100 * 8192);
    await db.store.close();
  });

  it("are made by the writer at its mark, so the WAL stays bounded even if the thread is slow", async () => {
    // The thread waits a minute between checkpoints: all the work falls to the writer's mark.
    const db = await open({ everyMs: 60_000, walLimitPages: 64 });
    await db.write(400);
    // About 4 MB went through the WAL, which was started over every 64 pages or so (later at
    // times: a restart waits for any connection still reading older pages), so it never grew far.
    expect(db.walBytes()).toBeLessThan(1024 * 1024);
    expect(db.dbBytes()).toBeGreaterThan(400 * 8192);
    await db.store.close();
  });

  it("shrink the WAL back once the writer is idle, after a spike grew it", async () => {
    const db = await open({
      everyMs: 20,
      walLimitPages: 16_384,
      shrinkAfterIdleMs: 200,
      shrinkAboveBytes: 1024 * 1024,
    });
    // A reader holding its snapshot (a backup, say) keeps the WAL from starting over, so the
    // writes pile up in it: about 3 MB.
    const reader = new Database(db.path, { readonly: true });
    reader.prepare("BEGIN").run();
    reader.prepare("SELECT count(*) FROM messages").get();
    await db.write(400);
    const spike = db.walBytes();
    expect(spike).toBeGreaterThan(2 * 1024 * 1024);
    reader.prepare("COMMIT").run();
    reader.close();

    await eventually(() => db.walBytes() <= 1024 * 1024);
    // Nothing was lost on the way, and the writer goes on as before.
    await db.write(10);
    const count = new Database(db.path, { readonly: true });
    expect(count.prepare("SELECT count(*) AS n FROM messages").get()).toEqual({ n: 410 });
    count.close();
    await db.store.close();
  });

  it("stop with the store, which leaves no WAL behind", async () => {
    const db = await open({ everyMs: 20, walLimitPages: 16_384 });
    await db.write(50);
    await db.store.close();
    expect(existsSync(`${db.path}-wal`)).toBe(false);
  });

  it("that fail are reported, and the writer goes back to SQLite's own mark", async () => {
    const dir = tempDir(cleanup, "hookline-ckpt-");
    const db = new Database(join(dir, "hookline.db"));
    db.pragma("journal_mode = WAL");
    // The thread opens its own connection, here to a file in a directory that does not exist.
    const failures: Error[] = [];
    const checkpointer = new Checkpointer(db, join(dir, "gone", "hookline.db"), {
      everyMs: 20,
      walLimitPages: 16_384,
      onFailure: (err) => failures.push(err),
    });
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(16_384);
    await eventually(() => failures.length > 0);
    expect(failures[0]!.message).toMatch(/directory does not exist/);
    // At the high mark, with nothing copied by the thread, one commit would copy 64 MiB.
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(1_000);
    await checkpointer.close();
    db.close();
  });
});
