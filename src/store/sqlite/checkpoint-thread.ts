/**
 * The body of the checkpoint thread (see checkpointer.ts): its own connection to the database
 * file, moving committed pages from the WAL into the file every 25 ms by default. PASSIVE never
 * waits for the writer and never makes it wait; this thread takes the fsyncs instead of it.
 */
import Database from "better-sqlite3";
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
// A checkpoint that fails (the disk is full: the file cannot grow) is tried again at the next
// turn, so checkpoints carry on once there is room. The writer hears when they begin to fail and
// when they work again.
let failing = false;
const report = (r: CheckpointReport) => port.postMessage(r);
const timer = setInterval(() => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
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
