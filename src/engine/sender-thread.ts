/**
 * The body of one sender thread (see sender-threads.ts): an HttpSender of its own, fed batches of
 * requests by the main thread and answering with batches of results. Nothing here decides
 * anything; it only moves bytes, so the main thread keeps every rule and the store.
 */
import { parentPort, workerData } from "node:worker_threads";
import { yieldToTheMainThread } from "../threads.js";
import { ExemptTargets } from "./guarded-connect.js";
import { HttpSender } from "./sender.js";
import type { ThreadReply, ThreadRequest, ThreadSettings } from "./sender-threads.js";

if (!parentPort) throw new Error("sender-thread.ts runs only as a worker thread");
const port = parentPort;

const settings = workerData as ThreadSettings;
yieldToTheMainThread(settings.niceness);
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
let outbox: ThreadReply["results"] = [];
let flushQueued = false;
function flush(): void {
  if (outbox.length === 0) return;
  const results = outbox;
  outbox = [];
  port.postMessage({ type: "results", results } satisfies ThreadReply);
}
function reply(id: number, result: ThreadReply["results"][number]["result"]): void {
  outbox.push({ id, result });
  if (outbox.length >= MAX_REPLY) flush();
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
      for (const r of msg.requests) {
        const started = performance.now();
        void sender
          .send({
            url: r.url,
            headers: r.headers,
            // The cloned bytes arrive as a Uint8Array of their own: wrapped, not copied.
            body: Buffer.from(r.body.buffer, r.body.byteOffset, r.body.byteLength),
            timeoutMs: r.timeoutMs,
          })
          .then((result) => {
            // Spelled out: a spread followed by a new field is V8's slow path (about 1 µs).
            reply(r.id, {
              status: result.status,
              error: result.error,
              errorDetail: result.errorDetail,
              snippet: result.snippet,
              retryAfter: result.retryAfter,
              durationMs: Math.round(performance.now() - started),
            });
          });
      }
      break;
    case "exempt":
      exempt.replaceAll(msg.pairs);
      break;
    case "close":
      void sender.close().finally(() => port.close());
      break;
  }
});
