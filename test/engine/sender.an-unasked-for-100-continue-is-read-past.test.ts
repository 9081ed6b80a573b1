import { createServer as createNetServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Sender } from "../../src/engine/sender.js";
import { senders } from "../support/senders.js";

/**
 * A raw TCP receiver that answers each request on a connection with the next script of pieces,
 * each written on its own (a pause between), so a 100 may arrive split across reads; `null`
 * ends the connection.
 */
async function scripted(
  answers: (string | null)[][],
): Promise<{ url: string; server: Server; sockets: Socket[] }> {
  const sockets: Socket[] = [];
  let next = 0;
  const server = createNetServer((s) => {
    sockets.push(s);
    s.on("error", () => {});
    s.on("data", (data) => {
      // One answer per request head (the body comes with it or right after).
      if (!data.toString("latin1").startsWith("POST ")) return;
      const pieces = answers[next++] ?? [];
      void (async () => {
        for (const p of pieces) {
          if (p === null) s.end();
          else s.write(p);
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    server,
    sockets,
  };
}

const request = (url: string) => ({
  url,
  headers: { "content-type": "application/json" },
  body: Buffer.from("{}"),
  timeoutMs: 2_000,
});

const ok = "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";

describe.each(senders)("a 100 Continue nobody asked for is read past (%s)", (_, make) => {
  let sender: Sender;
  let cleanup: (() => void)[] = [];
  afterEach(async () => {
    for (const c of cleanup) c();
    cleanup = [];
    await sender.close();
  });

  async function serve(answers: (string | null)[][]) {
    const s = await scripted(answers);
    cleanup.push(() => {
      for (const sock of s.sockets) sock.destroy();
      s.server.close();
    });
    return s.url;
  }

  it("the answer after a 100 in the same packet is recorded", async () => {
    sender = make();
    const url = await serve([[`HTTP/1.1 100 Continue\r\n\r\n${ok}`]]);
    expect(await sender.send(request(url))).toMatchObject({
      status: 200,
      error: null,
      snippet: "ok",
    });
  });

  it("a 100 split across reads, another 100, then the answer with its Retry-After", async () => {
    sender = make();
    const url = await serve([
      [
        "HTTP/1.",
        "1 10",
        "0 Continue\r\nx-note: a",
        "\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n",
        "HTTP/1.1 503 Service Unavailable\r\nretry-after: 7\r\ncontent-length: 4\r\n\r\nbusy",
      ],
    ]);
    expect(await sender.send(request(url))).toMatchObject({
      status: 503,
      error: null,
      snippet: "busy",
      retryAfter: "7",
    });
  });

  it("a kept-alive connection reads past a 100 before each answer", async () => {
    sender = make();
    const url = await serve([
      [`HTTP/1.1 100 Continue\r\n\r\n${ok}`],
      ["HTTP/1.1 100 Continue\r\n\r\n", "HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n"],
    ]);
    expect(await sender.send(request(url))).toMatchObject({ status: 200 });
    expect(await sender.send(request(url))).toMatchObject({ status: 202, error: null });
  });

  it("a 100 after a 103 or a 102, in one packet or its own read, is read past too", async () => {
    sender = make();
    const url = await serve([
      [
        `HTTP/1.1 103 Early Hints\r\nlink: </a.css>; rel=preload\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n${ok}`,
      ],
      ["HTTP/1.1 102 Processing\r\n\r\n", "HTTP/1.1 100 Continue\r\n\r\n", ok],
    ]);
    expect(await sender.send(request(url))).toMatchObject({ status: 200, error: null });
    expect(await sender.send(request(url))).toMatchObject({ status: 200, error: null });
  });

  it("a 101 nobody asked for is not taken for an interim answer", async () => {
    sender = make();
    const url = await serve([[`HTTP/1.1 101 Switching Protocols\r\nupgrade: x\r\n\r\n${ok}`]]);
    expect(await sender.send(request(url))).toMatchObject({ status: null });
  });

  it("a connection that ends within a 100, or after it with no answer, fails at once", async () => {
    sender = make();
    const url = await serve([
      ["HTTP/1.1 100 Cont", null],
      ["HTTP/1.1 100 Continue\r\n\r\n", null],
    ]);
    for (let i = 0; i < 2; i++) {
      const r = await sender.send({ ...request(url), timeoutMs: 10_000 });
      expect(r).toMatchObject({ status: null, error: "connection_reset" });
      expect(r.errorDetail).not.toMatch(/no answer within/);
    }
  });
});
