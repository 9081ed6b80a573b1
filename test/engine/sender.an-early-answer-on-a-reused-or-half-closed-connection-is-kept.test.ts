/**
 * Early answers (a 413 before the body is read) on connections in the states production sees
 * beside a fresh one: a connection kept alive from an earlier delivery, and one the receiver
 * half-closes (its FIN sent with the answer) before it stops reading and drops it. The answer is
 * what the attempt records, and a connection kept alive is still used again; on both ways
 * hookline sends.
 */
import { createServer, type Server } from "node:http";
import { createServer as createNetServer, type AddressInfo, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Sender } from "../../src/engine/sender.js";
import { senders } from "../support/senders.js";

/** About 1 MB, far more than a receiver reads before refusing it. */
const BODY = Buffer.alloc(1024 * 1024, "x");
const SMALL = Buffer.from('{"type":"ping"}');

describe.each(senders)("an early answer (%s)", (_, make) => {
  let sender: Sender | undefined;
  let server: Server | ReturnType<typeof createNetServer> | undefined;
  afterEach(async () => {
    await sender?.close();
    await new Promise((r) => server?.close(r));
  });

  async function listen(s: NonNullable<typeof server>): Promise<string> {
    server = s;
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    return `http://127.0.0.1:${(s.address() as AddressInfo).port}/hook`;
  }

  const send = (url: string, body: Buffer) =>
    sender!.send({ url, headers: {}, body, timeoutMs: 5_000 });

  it("on a connection kept alive from an earlier delivery is recorded as the answer", async () => {
    // Each request is answered by its size: a small one read whole and accepted, a large one
    // refused after its first 16 KiB, the connection dropped with the rest unread.
    const connections: number[] = [];
    const url = await listen(
      createServer((req, res) => {
        connections.push(req.socket.remotePort!);
        if (Number(req.headers["content-length"]) < 1024) {
          req.resume();
          req.on("end", () => res.end("ok"));
          return;
        }
        let read = 0;
        req.on("data", (chunk: Buffer) => {
          read += chunk.length;
          if (read < 16 * 1024 || res.headersSent) return;
          res.writeHead(413, { "content-type": "text/plain" });
          res.end("too large");
          req.socket.destroy();
        });
      }),
    );
    sender = make();
    expect(await send(url, SMALL)).toMatchObject({ status: 200, error: null, snippet: "ok" });
    // undici takes a connection back a turn of the loop after its answer.
    await new Promise((r) => setImmediate(r));
    expect(await send(url, BODY)).toMatchObject({ status: 413, error: null, snippet: "too large" });
    expect(connections[1]).toBe(connections[0]);
    // The refused connection is not used again; the next delivery gets a new one.
    expect(await send(url, SMALL)).toMatchObject({ status: 200, error: null, snippet: "ok" });
    expect(connections[2]).not.toBe(connections[1]);
  });

  it("sent with a half-close, before the receiver drops the connection unread, is recorded", async () => {
    const url = await listen(
      createNetServer((socket: Socket) => {
        socket.on("error", () => {});
        let read = 0;
        socket.on("data", (chunk: Buffer) => {
          read += chunk.length;
          if (read === chunk.length) {
            socket.end("HTTP/1.1 413 Payload Too Large\r\nContent-Length: 9\r\n\r\ntoo large");
          } else if (read >= 64 * 1024) {
            // Dropped with hookline's body still coming: the close is a reset.
            socket.pause();
            socket.destroy();
          }
        });
      }),
    );
    sender = make();
    for (let i = 0; i < 3; i++) {
      expect(await send(url, BODY)).toMatchObject({
        status: 413,
        error: null,
        snippet: "too large",
      });
    }
  });
});
