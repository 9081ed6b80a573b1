/**
 * The body of one sender thread (see sender-threads.ts): an HttpSender of its own, fed batches of
 * requests by the main thread and answering with batches of results. Nothing here decides
 * anything; it only moves bytes, so the main thread keeps every rule and the store.
 */
import { parentPort, workerData } from "node:worker_threads";
import { setThreadNiceness } from "../threads.js";
import { ExemptTargets } from "./guarded-connect.js";
import { HttpSender, type SendResult } from "./sender.js";
import type { ThreadReply, ThreadRequest, ThreadSettings } from "./sender-threads.js";
import { packResult, resultCount, unpackRequests, type WireResults } from "./thread-wire.js";

if (!parentPort) throw new Error("sender-thread.ts runs only as a worker thread");
const port = parentPort;

const settings = workerData as ThreadSettings;
setThreadNiceness(settings.niceness);
const exempt = new ExemptTargets();
const sender = new HttpSender({
  maxResponseBytes: settings.maxResponseBytes,
  refusePrivateTargets: settings.refusePrivateTargets,
  exemptTargets: exempt,
});

// Results finished in the same turn of this thread's loop go back in one message, at most
// MAX_REPLY of them: the main thread handles each message in one go, and an API request waiting
// behind it should not wait for hundreds of outcomes.
const MAX_REPLY = 64;
let outbox: WireResults = [];
let flushQueued = false;
function flush(): void {
  if (outbox.length === 0) return;
  const results = outbox;
  outbox = [];
  port.postMessage({ type: "results", results } satisfies ThreadReply);
}
function reply(id: number, result: SendResult, durationMs: number): void {
  packResult(outbox, id, result, durationMs);
  if (resultCount(outbox) >= MAX_REPLY) flush();
  if (flushQueued) return;
  flushQueued = true;
  setImmediate(() => {
    flushQueued = false;
    flush();
  });
}

port.on("message", (msg: ThreadRequest) => {
  switch (msg.type) {
    case "send":
      unpackRequests(msg.requests, (id, req) => {
        const started = performance.now();
        void sender
          .send(req)
          .then((result) => reply(id, result, Math.round(performance.now() - started)));
      });
      break;
    case "exempt":
      exempt.replaceAll(msg.pairs);
      break;
    case "priority": {
      const applied = setThreadNiceness(msg.niceness);
      port.postMessage({ type: "priority", niceness: msg.niceness, applied } satisfies ThreadReply);
      break;
    }
    case "close":
      // A connection still being set up cannot be cancelled (undici drops it only once it is
      // made or its connect timeout passes) and would keep this thread up: it ends here instead.
      void sender.close().finally(() => process.exit(0));
      break;
  }
});

// Loaded: requests sent to it from now go out as they come (ThreadedSender.started).
port.postMessage({ type: "ready" } satisfies ThreadReply);
