/**
 * Scenario 3's reference, run as its own process: the least a service can do to accept a webhook
 * over HTTP and deliver it, with nothing durable. A plain `node:http` server takes each posted
 * message (`{"eventType", "payload"}`), parses it, answers 202 with an id, and queues the payload;
 * an undici keep-alive Agent sends each queued payload, signed as the ceiling client signs, to
 * `target`, with up to `concurrency` requests in flight. No storage, no retries: what is lost on a
 * crash is everything queued. With `processes` above 1, that many copies share the port (node:cluster,
 * the plain way to use every core), the in-flight limit split between them. Reads its settings
 * from argv, says its port (and every process's pid) over IPC, and exits when the parent
 * disconnects.
 */
import cluster from "node:cluster";
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { request } from "undici";
import { keepAliveAgent, signedHeaders } from "./signed-post.js";

const [target, concurrencyArg, processesArg] = process.argv.slice(2);
const processes = Math.max(1, Number(processesArg ?? 1));
const concurrency = Math.max(1, Math.round(Number(concurrencyArg) / processes));

/** What the relay tells its parent once it listens. */
export interface RelayReady {
  port: number;
  pids: number[];
}

if (processes > 1 && cluster.isPrimary) runPrimary();
else runRelay();

/** Starts the copies, says the port they share once all listen, and stops them with the parent. */
function runPrimary(): void {
  const workers = Array.from({ length: processes }, () => cluster.fork());
  let listening = 0;
  cluster.on("listening", (_worker, address) => {
    if (++listening === processes) {
      const ready: RelayReady = { port: address.port, pids: workers.map((w) => w.process.pid!) };
      process.send?.(ready);
    }
  });
  process.on("disconnect", () => {
    for (const w of workers) w.kill();
    cluster.on("exit", () => {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
    });
  });
}

function runRelay(): void {
  const key = randomBytes(24);
  const agent = keepAliveAgent();

  interface Queued {
    id: string;
    body: string;
  }

  const queue: Queued[] = [];
  let head = 0;
  let inFlight = 0;
  let seq = 0;
  let failed = 0;

  async function send(q: Queued): Promise<void> {
    try {
      const res = await request(target!, {
        method: "POST",
        dispatcher: agent,
        headers: signedHeaders(key, q.id, q.body, "bench-relay/1"),
        body: q.body,
      });
      await res.body.text();
      if (res.statusCode < 200 || res.statusCode >= 300) failed++;
    } catch {
      failed++;
    }
  }

  /** Starts queued sends while there is room; each finished one starts the next. */
  function pump(): void {
    while (inFlight < concurrency && head < queue.length) {
      const q = queue[head]!;
      queue[head++] = undefined as unknown as Queued;
      inFlight++;
      void send(q).finally(() => {
        inFlight--;
        pump();
      });
    }
    if (head === queue.length) {
      queue.length = 0;
      head = 0;
    }
  }

  function accept(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let payload: unknown;
      try {
        payload = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { payload?: unknown })
          .payload;
      } catch {
        payload = undefined;
      }
      if (typeof payload !== "object" || payload === null) {
        res.writeHead(422, { "content-type": "application/json" });
        res.end('{"code":"validation"}');
        return;
      }
      const id = `msg_${process.pid}_${seq++}`;
      res.writeHead(202, { "content-type": "application/json" });
      res.end(`{"id":"${id}"}`);
      queue.push({ id, body: JSON.stringify(payload) });
      pump();
    });
  }

  const server = createServer({ keepAliveTimeout: 60_000 }, accept);
  server.listen(0, "127.0.0.1", () => {
    const address = server.address();
    // Alone, it tells the parent; as a copy, the primary learns it from node:cluster.
    if (cluster.isPrimary) {
      const ready: RelayReady = {
        port: typeof address === "object" && address ? address.port : 0,
        pids: [process.pid],
      };
      process.send?.(ready);
    }
  });
  process.on("disconnect", () => {
    if (failed) console.error(`relay: ${failed} sends failed`);
    server.close();
    server.closeAllConnections();
    void agent.close().finally(() => process.exit(0));
  });
}
