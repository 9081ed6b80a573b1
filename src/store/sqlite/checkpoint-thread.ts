/**
 * The body of the checkpoint thread (see checkpointer.ts): its own connection to the database
 * file, moving committed pages from the WAL into the file every 25 ms by default. PASSIVE never
 * waits for the writer and never makes it wait; this thread takes the fsyncs instead of it. Once
 * the writer is idle, it also shrinks a WAL that a spike left large.
 */
import Database from "better-sqlite3";
import { statSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { parentPort, workerData } from "node:worker_threads";
import { setThreadNiceness } from "../../threads.js";
import type { CheckpointReport, CheckpointThreadSettings } from "./checkpointer.js";

if (!parentPort) throw new Error("checkpoint-thread.ts runs only as a worker thread");
const port = parentPort;
const settings = workerData as CheckpointThreadSettings;
// Copying pages can wait a moment; callers of the API should not.
setThreadNiceness(settings.niceness);

const db = new Database(settings.path);
// A checkpoint's fsyncs follow its own connection's setting: the same as the writer's.
db.pragma(`synchronous = ${settings.synchronous}`);
// Never wait (better-sqlite3 waits 5 s by default): a TRUNCATE checkpoint waiting for a reader
// would hold the writer's lock all that time, and the writer with it.
db.pragma("busy_timeout = 0");

/** A checkpoint's answer: whether it was kept from finishing, frames in the WAL, frames copied. */
interface Checkpoint {
  busy: number;
  log: number;
  checkpointed: number;
}

// SQLite reuses its WAL file from the start and never makes it smaller, so a spike (a backlog
// drained, a backup holding its snapshot while writes went on) would leave it at its largest for
// good. Once the WAL has not grown for a while and every frame is copied, a TRUNCATE checkpoint
// empties it: it takes the writer's lock, which a commit then waits for, but with nothing left
// to copy only for the truncation, and never while commits keep coming.
const walPath = `${settings.path}-wal`;
let frames = -1;
let stillSince = performance.now();
let looked = false;

function shrinkIfIdle(c: Checkpoint): void {
  const now = performance.now();
  if (c.log !== frames) {
    frames = c.log;
    stillSince = now;
    looked = false;
    return;
  }
  if (looked || c.log !== c.checkpointed || now - stillSince < settings.shrinkAfterIdleMs) return;
  looked = true;
  const size = statSync(walPath, { throwIfNoEntry: false })?.size ?? 0;
  if (size <= settings.shrinkAboveBytes) return;
  const [truncated] = db.pragma("wal_checkpoint(TRUNCATE)") as Checkpoint[];
  // A reader or the writer was there first: looked at again after another idle spell.
  if (truncated?.busy) {
    looked = false;
    stillSince = now;
  }
}

// A checkpoint that fails (the disk is full: the file cannot grow) is tried again at the next
// turn, so checkpoints carry on once there is room. The writer hears when they begin to fail and
// when they work again.
let failing = false;
const report = (r: CheckpointReport) => port.postMessage(r);
const timer = setInterval(() => {
  try {
    shrinkIfIdle((db.pragma("wal_checkpoint(PASSIVE)") as Checkpoint[])[0]!);
  } catch (err) {
    const { code = "", message } = err as { code?: string; message: string };
    if (!failing) report({ kind: "failing", code, message });
    failing = true;
    return;
  }
  if (failing) report({ kind: "working" });
  failing = false;
}, settings.everyMs);

port.on("message", (msg: "close") => {
  if (msg !== "close") return;
  clearInterval(timer);
  db.close();
  port.close();
});
