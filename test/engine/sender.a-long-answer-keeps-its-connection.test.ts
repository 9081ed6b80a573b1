/**
 * docs/delivery.md: a response body past the 4 KiB snippet is read to its end, up to 64 KiB, so
 * the connection is kept for the next delivery; many receivers answer with an HTML page of
 * 5–50 KiB. A body past that bound, or one that has not ended by the deadline, drops it.
 */
import { createServer, type Server } from "node:http";
import { createServer as createNetServer, type AddressInfo, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Sender } from "../../src/engine/sender.js";
import { senders } from "../support/senders.js";

const request = (url: string, timeoutMs = 5_000) => ({
  url,
  headers: { "content-type": "application/json" },
  body: Buffer.from("{}"),
  timeoutMs,
});

// undici's pool takes a connection back as free a turn after its answer ends; a request sent in
// the same turn opens another whatever the body, so the test lets that turn pass.
const nextTurn = () => new Promise((r) => setImmediate(r));

async function listen(server: Server | ReturnType<typeof createNetServer>): Promise<string> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

describe.each(senders)("a response body longer than the snippet (%s)", (_, make) => {
  let server: Server | undefined;
  let sender: Sender | undefined;
  let cleanup: (() => void)[] = [];
  afterEach(async () => {
    await sender?.close();
    for (const c of cleanup) c();
    cleanup = [];
    if (server) {
      server.closeAllConnections();
      await new Promise((r) => server!.close(r));
    }
    server = undefined;
  });

  it("of 20 KiB is read to its end, and the next delivery uses the same connection", async () => {
    const page = `<html>${"p".repeat(20 * 1024)}</html>`;
    let connections = 0;
    server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "text/html" });
      res.end(page);
    });
    server.keepAliveTimeout = 60_000;
    server.on("connection", () => connections++);
    const url = await listen(server);
    sender = make();
    for (let i = 0; i < 5; i++) {
      const r = await sender.send(request(url));
      expect(r).toMatchObject({ status: 200, error: null });
      expect(r.snippet).toBe(page.slice(0, 4096));
      await nextTurn();
    }
    expect(connections).toBe(1);
  });

  it("of 20 KiB in chunks of unknown length is read to its end too", async () => {
    let connections = 0;
    server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "text/html" });
      for (let i = 0; i < 20; i++) res.write("q".repeat(1024));
      res.end();
    });
    server.keepAliveTimeout = 60_000;
    server.on("connection", () => connections++);
    const url = await listen(server);
    sender = make();
    for (let i = 0; i < 3; i++) {
      const r = await sender.send(request(url));
      expect(r).toMatchObject({ status: 200, snippet: "q".repeat(4096) });
      await nextTurn();
    }
    expect(connections).toBe(1);
  });

  it("that never ends is cut at the deadline, keeping its status and snippet", async () => {
    let closed = false;
    const sockets: Socket[] = [];
    const raw = createNetServer((s) => {
      sockets.push(s);
      s.on("error", () => {});
      s.on("close", () => (closed = true));
      s.once("data", () => {
        s.write("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n");
        s.write(`1400\r\n${"z".repeat(5 * 1024)}\r\n`);
        // Then a byte now and then, well under the bound but never the end.
        const t = setInterval(() => s.writable && s.write("1\r\nz\r\n"), 100);
        s.on("close", () => clearInterval(t));
      });
    });
    const url = await listen(raw);
    cleanup.push(() => {
      for (const s of sockets) s.destroy();
      raw.close();
    });
    sender = make();
    // 3 s, not 1: the status and the first 5 KiB must be in before the deadline, and a busy
    // machine (the suite runs two files at once) can hold them up for a while.
    const r = await sender.send(request(url, 3_000));
    expect(r).toMatchObject({ status: 200, error: null, snippet: "z".repeat(4096) });
    // The connection is dropped rather than kept for a body that goes on.
    await expect.poll(() => closed).toBe(true);
  });
});
