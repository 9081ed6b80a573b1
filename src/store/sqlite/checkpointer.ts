/**
 * Checkpoints off the main thread. Left to itself, SQLite moves the WAL into the database file
 * inside whichever commit takes the WAL past 1,000 pages, and that commit's caller waits for the
 * copy and two fsyncs: measured here, 12 ms at the 99th percentile of commits while draining, and
 * about a fifth of the store's time per delivery. A thread of its own does that work instead,
 * with PASSIVE checkpoints that neither wait for the writer nor make it wait.
 *
 * Under a steady stream of commits a background checkpoint never quite catches up, and SQLite
 * starts the WAL over only once a checkpoint has caught up. So the writer keeps its own
 * checkpoint, at a much higher mark, and does it rarely and cheaply: by then the thread has
 * copied nearly everything.
 */
import { Worker } from "node:worker_threads";
import type { Database as Db } from "better-sqlite3";
import { workerEntry } from "../../threads.js";

export interface CheckpointSettings {
  /** How often the thread checkpoints. */
  everyMs: number;
  /** The writer checkpoints itself once the WAL holds this many pages (4 KiB each). */
  walLimitPages: number;
  /**
   * Once no commit has come for this long and every page is copied, a WAL file larger than
   * `shrinkAboveBytes` is truncated (SQLite reuses it from the start, never making it smaller).
   */
  shrinkAfterIdleMs?: number;
  shrinkAboveBytes?: number;
  /** Told if the thread fails; the writer has then gone back to SQLite's own checkpoints. */
  onFailure?: (err: Error) => void;
  /**
   * Told when the thread's checkpoints begin to fail (a full disk), and when they work again: the
   * writer is on SQLite's own checkpoints in between.
   */
  onCheckpoints?: (working: boolean, err?: Error) => void;
}

/** What the thread tells the writer about its checkpoints. */
export type CheckpointReport =
  { kind: "failing"; code: string; message: string } | { kind: "working" };

// The WAL file's layout: a header, then one frame per page written, each with a header of its own.
const WAL_HEADER_BYTES = 32;
const WAL_FRAME_HEADER_BYTES = 24;

/** SQLite's own mark, which the writer returns to if the thread fails. */
const SQLITE_DEFAULT_MARK = 1_000;

// Small and often: the thread's copy and fsyncs still slow the writer's own WAL writes a little
// while they run, in proportion to what each checkpoint carries. Accepting at 1,000 messages/s,
// two runs each, p99: every 1,000 ms 17-62 ms, 100 ms 10.1-10.6, 50 ms 8.6-9.1, 25 ms 8.3-8.6.
// With fan-out 10 (session 13, three runs each, alternated): 50 ms 13.3-14.5 ms, 25 ms
// 11.8-13.5; 64 clients as fast as they can, p99 26.3-28.0 against 21.2-22.0 ms. A drain paid
// at most 1 % for it (15,014-16,154 against 15,189-15,743 deliveries/s); every 10 ms cost 2 %.
export const DEFAULT_CHECKPOINTS: CheckpointSettings = Object.freeze({
  everyMs: 25,
  walLimitPages: 16_384,
});

// Idle for a while, not between two bursts: a WAL truncated is grown again by the commits that
// follow. Above SQLite's own mark of 1,000 pages, so the WAL of a quiet hookline is left alone.
const SHRINK_AFTER_IDLE_MS = 10_000;
const SHRINK_ABOVE_BYTES = 4 * 1024 * 1024;

/** What the thread is started with. */
export interface CheckpointThreadSettings {
  path: string;
  /** The writer's `synchronous` level as SQLite reports it (1 NORMAL, 2 FULL). */
  synchronous: number;
  everyMs: number;
  shrinkAfterIdleMs: number;
  shrinkAboveBytes: number;
  /** The thread's nice value (Linux). */
  niceness: number;
}

/** One checkpoint thread for one database file. */
export class Checkpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;

  constructor(db: Db, path: string, settings: CheckpointSettings) {
    db.pragma(`wal_autocheckpoint = ${settings.walLimitPages}`);
    // SQLite reuses its WAL file from the start and never makes it smaller by itself, so a spike
    // (a backup or a long read holding its snapshot while commits went on) would leave it at its
    // largest for as long as commits keep coming: the thread's idle shrink never gets its turn
    // under steady load. With a limit, the first commit after the WAL starts over cuts the file
    // back to it. Twice the writer's mark: the WAL reaches the mark in normal running, and goes a
    // commit's frames past it before the writer checkpoints; a limit at the mark would cut those
    // and grow them again at every start-over.
    const pageBytes = db.pragma("page_size", { simple: true }) as number;
    const markBytes =
      WAL_HEADER_BYTES + settings.walLimitPages * (WAL_FRAME_HEADER_BYTES + pageBytes);
    db.pragma(`journal_size_limit = ${2 * markBytes}`);
    const thread: CheckpointThreadSettings = {
      path,
      // Read from the writer, so the thread's fsyncs follow whatever it was opened with.
      synchronous: db.pragma("synchronous", { simple: true }) as number,
      everyMs: settings.everyMs,
      shrinkAfterIdleMs: settings.shrinkAfterIdleMs ?? SHRINK_AFTER_IDLE_MS,
      shrinkAboveBytes: settings.shrinkAboveBytes ?? SHRINK_ABOVE_BYTES,
      // Below the main thread, and below the sender threads however they stand: copying pages
      // can wait.
      niceness: 10,
    };
    const entry = workerEntry(import.meta.url, "checkpoint-thread");
    this.worker = new Worker(entry.file, {
      eval: entry.eval,
      workerData: thread,
      name: "hookline-checkpoint",
    });
    // Should it ever fail, the writer goes back to SQLite's own checkpoints at 1,000 pages: at
    // the high mark, with nothing copied beforehand, a checkpoint would copy 64 MiB inside one
    // commit. (Without a listener the error would be thrown here.)
    this.worker.on("error", (err) => {
      // A handler that threw here would take the process down: only an open connection is set.
      if (db.open) db.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_MARK}`);
      settings.onFailure?.(err);
    });
    // While the thread's checkpoints fail, nothing is copied before the writer's high mark either.
    this.worker.on("message", (r: CheckpointReport) => {
      if (!db.open) return;
      const mark = r.kind === "working" ? settings.walLimitPages : SQLITE_DEFAULT_MARK;
      db.pragma(`wal_autocheckpoint = ${mark}`);
      if (r.kind === "working") settings.onCheckpoints?.(true);
      else settings.onCheckpoints?.(false, Object.assign(new Error(r.message), { code: r.code }));
    });
    // It never keeps the process alive; close() stops it. (After the listener, which refs it.)
    this.worker.unref();
    this.exited = new Promise((resolve) => {
      this.worker.once("exit", () => resolve());
    });
  }

  /** Stops the thread (its last checkpoint finishes first). */
  async close(): Promise<void> {
    this.worker.postMessage("close");
    const timer = setTimeout(() => void this.worker.terminate(), 5_000);
    await this.exited;
    clearTimeout(timer);
  }
}
