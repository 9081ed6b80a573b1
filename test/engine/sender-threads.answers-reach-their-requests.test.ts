import { spawnSync } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ExemptTargets } from "../../src/engine/guarded-connect.js";
import { HttpSender } from "../../src/engine/sender.js";
import { ThreadedSender } from "../../src/engine/sender-threads.js";
import { cameTrue, niceOf, threadIds } from "../support/threads.js";

/** A receiver that answers each request with its own path, after `delayMs` (for that path). */
async function echoServer(
  delayMs: number | ((path: string) => number) = 0,
): Promise<{ server: Server; base: string; port: number }> {
  const delayOf = typeof delayMs === "number" ? () => delayMs : delayMs;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => setTimeout(() => res.end(req.url), delayOf(req.url ?? "")));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return { server, base: `http://127.0.0.1:${port}`, port };
}

const post = (url: string, timeoutMs = 5_000) => ({
  url,
  headers: { "content-type": "application/json" },
  body: Buffer.from("{}"),
  timeoutMs,
});

describe("a threaded sender returns every answer to the request that caused it", () => {
  let sender: ThreadedSender | undefined;
  let server: Server | undefined;
  afterEach(async () => {
    await sender?.close();
    server?.close();
    sender = undefined;
    server = undefined;
  });

  it("600 requests spread over two threads each get their own answer and a duration", async () => {
    const rx = await echoServer(2);
    server = rx.server;
    sender = new ThreadedSender({ threads: 2 });
    const results = await Promise.all(
      Array.from({ length: 600 }, (_, i) => sender!.send(post(`${rx.base}/r/${i}`))),
    );
    results.forEach((r, i) => {
      expect(r).toMatchObject({ status: 200, error: null, snippet: `/r/${i}` });
      expect(r.durationMs).toBeGreaterThanOrEqual(0);
    });
  });

  it("a thread that dies answers what it held as lost by hookline, and a new one takes over", async () => {
    // The held request is answered after 4 s, not 1: the thread must die while it is still out,
    // and on a busy machine (the suite runs two files at once) the 300 ms wait and the ending of
    // the thread can take well over a second. A lost request is answered when the thread dies.
    const rx = await echoServer((path) => (path === "/held" ? 4_000 : 0));
    server = rx.server;
    sender = new ThreadedSender({ threads: 1 });
    const held = sender.send(post(`${rx.base}/held`));
    await new Promise((r) => setTimeout(r, 300));
    // Reaching into the pool is the only way to make a thread die from outside it.
    const pool = sender as unknown as { threads: { worker: { terminate(): Promise<number> } }[] };
    await pool.threads[0]!.worker.terminate();
    const lost = await held;
    // Not the receiver's failure: the engine puts the delivery back (no attempt, no breaker).
    expect(lost).toMatchObject({ status: null, error: null, lost: true });
    expect(lost.errorDetail).toMatch(/sender thread stopped/);
    const after = await sender.send(post(`${rx.base}/after`));
    expect(after).toMatchObject({ status: 200, snippet: "/after" });
  });

  it("hookline's own exempt loopback servers reach the threads as they come and go", async () => {
    const rx = await echoServer();
    server = rx.server;
    const exempt = new ExemptTargets();
    sender = new ThreadedSender({ threads: 2, refusePrivateTargets: true, exemptTargets: exempt });
    expect(await sender.send(post(`${rx.base}/before`))).toMatchObject({
      error: "refused_target",
    });
    exempt.add("127.0.0.1", rx.port);
    const during = await Promise.all([1, 2, 3, 4].map(() => sender!.send(post(`${rx.base}/x`))));
    for (const r of during) expect(r).toMatchObject({ status: 200 });
    exempt.delete("127.0.0.1", rx.port);
    // A new connection is checked again (the kept-alive ones are dropped by a fresh pool only).
    const fresh = new ThreadedSender({
      threads: 1,
      refusePrivateTargets: true,
      exemptTargets: exempt,
    });
    expect(await fresh.send(post(`${rx.base}/after`))).toMatchObject({ error: "refused_target" });
    await fresh.close();
  });

  it("keeps an endpoint URL's query string, in the thread and in process alike", async () => {
    const rx = await echoServer();
    server = rx.server;
    sender = new ThreadedSender({ threads: 1 });
    const inProcess = new HttpSender();
    for (const s of [sender, inProcess]) {
      const r = await s.send(post(`${rx.base}/hook/a%20b?tenant=7&x=%2F`));
      expect(r).toMatchObject({ status: 200, snippet: "/hook/a%20b?tenant=7&x=%2F" });
    }
    await inProcess.close();
  });

  it("runs its threads below the main thread while API callers are answered, level after", async () => {
    const rx = await echoServer();
    server = rx.server;
    const before = new Set(threadIds());
    const refused: number[] = [];
    sender = new ThreadedSender({ threads: 1, onPriorityRefused: (n) => refused.push(n) });
    await sender.send(post(`${rx.base}/up`));
    const added = threadIds().filter((t) => !before.has(t));
    const main = niceOf(String(process.pid));
    const niceness = () => added.map(niceOf);
    // The thread sending is one of those the sender added; the others are Node's own.
    expect(niceness().every((n) => n === main)).toBe(true);

    sender.yieldToCallers(true);
    expect(await cameTrue(() => niceness().includes(main + 5))).toBe(true);
    sender.yieldToCallers(false);
    // Taking the priority back is Linux's to allow: as root it is; otherwise the thread stays
    // below, and the sender says so.
    const back =
      process.getuid?.() === 0
        ? () => niceness().every((n) => n === main)
        : () => refused.length === 1;
    expect(await cameTrue(back)).toBe(true);
    // Its answers still reach it either way.
    expect(await sender.send(post(`${rx.base}/after`))).toMatchObject({ snippet: "/after" });
  });

  it("where Linux does not let a thread take its priority back, it stays below and says so", async () => {
    // A process that may not raise its threads' priority: as root, the child runs as nobody.
    const asRoot = process.getuid?.() === 0;
    const child = spawnSync(
      process.execPath,
      ["--import", "tsx", "test/support/sender-priority-child.ts"],
      { encoding: "utf8", timeout: 30_000, ...(asRoot ? { uid: 65534, gid: 65534 } : {}) },
    );
    expect(child.stderr).toBe("");
    const seen = JSON.parse(child.stdout) as {
      main: number;
      steppedDown: boolean;
      refused: number[];
      nice: number[];
    };
    expect(seen.steppedDown).toBe(true);
    expect(seen.refused).toEqual([seen.main]);
    expect(seen.nice).toContain(seen.main + 5);
  });

  it("a closed sender answers at once with an error instead of holding the request", async () => {
    const rx = await echoServer();
    server = rx.server;
    sender = new ThreadedSender({ threads: 1 });
    await sender.close();
    expect(await sender.send(post(`${rx.base}/late`))).toMatchObject({ error: "network" });
  });
});
