/**
 * A receiver that answers before it has read the request (a 413 for a body over its limit, a 401
 * checked from the headers) and closes the connection while hookline is still writing a large
 * body: the write fails (EPIPE, or a reset), but the receiver did answer, and its answer is what
 * the customer's attempt log must show — a 413 is permanent, a reset would be retried and counted
 * toward the circuit breaker. undici reads what arrived before the failed write; these hold it to
 * that, on both ways hookline sends, to HTTPS receivers as to plain ones.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { createServer as createNetServer, type AddressInfo, type Socket } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Sender } from "../../src/engine/sender.js";
import { senders } from "../support/senders.js";
import { acceptingAnyCertificate, receiverCertificate } from "../support/tls.js";

/** About 1 MB, far more than a receiver reads before refusing it. */
const BODY = Buffer.alloc(1024 * 1024, "x");

/** Holds this thread, as a busy event loop would: what the receiver sent all arrives at once. */
const hold = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Answers once `readBytes` of the request have been read, then drops the connection. */
function refuse(status: number, readBytes: number) {
  return (req: IncomingMessage, res: ServerResponse) => {
    let read = 0;
    const answer = () => {
      res.writeHead(status, { "content-type": "text/plain" });
      res.end(`refused with ${status}`);
      req.socket.destroy();
    };
    if (readBytes === 0) return answer();
    req.on("data", (chunk: Buffer) => {
      read += chunk.length;
      if (read >= readBytes && !res.headersSent) answer();
    });
  };
}

describe.each(senders)("an answer sent before the body is read (%s)", (_, make) => {
  let sender: Sender;
  let server: Server | ReturnType<typeof createNetServer> | undefined;
  afterEach(async () => {
    await sender.close();
    await new Promise((r) => server?.close(r));
  });

  async function listen(s: NonNullable<typeof server>): Promise<string> {
    server = s;
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    return `http://127.0.0.1:${(s.address() as AddressInfo).port}/hook`;
  }

  const send = (url: string) => sender.send({ url, headers: {}, body: BODY, timeoutMs: 5_000 });

  /** A node:http receiver that answers once it has read `readBytes`, then drops the connection. */
  const refusing = (status: number, readBytes: number) => createServer(refuse(status, readBytes));

  it("a 413 after the first 16 KiB is recorded as the 413, every time", async () => {
    sender = make();
    const url = await listen(refusing(413, 16 * 1024));
    for (let i = 0; i < 5; i++) {
      expect(await send(url)).toMatchObject({
        status: 413,
        error: null,
        errorDetail: null,
        snippet: "refused with 413",
        retryAfter: null,
      });
    }
  });

  it("a 401 sent on the headers alone is recorded as the 401", async () => {
    sender = make();
    const url = await listen(refusing(401, 0));
    expect(await send(url)).toMatchObject({
      status: 401,
      error: null,
      snippet: "refused with 401",
    });
  });

  it("an answer followed at once by a reset is recorded as the answer", async () => {
    sender = make();
    // Unread body left behind makes the close a reset (RST); holding the thread after it makes
    // the answer and the reset reach an in-process sender together, before it reads either.
    const url = await listen(
      createNetServer((socket: Socket) => {
        socket.on("error", () => {});
        socket.once("data", () => {
          socket.pause();
          socket.write(
            "HTTP/1.1 413 Payload Too Large\r\nContent-Length: 17\r\n\r\npayload too large",
          );
          socket.resetAndDestroy();
          hold(30);
        });
      }),
    );
    expect(await send(url)).toMatchObject({
      status: 413,
      error: null,
      snippet: "payload too large",
    });
  });
});

describe.each(senders)("an answer sent before the body is read, over HTTPS (%s)", (_, make) => {
  let sender: Sender;
  let server: ReturnType<typeof createHttpsServer> | undefined;
  let trustedNoMore: () => void;
  beforeAll(() => (trustedNoMore = acceptingAnyCertificate()));
  afterAll(() => trustedNoMore());
  afterEach(async () => {
    await sender.close();
    await new Promise((r) => server?.close(r));
  });

  async function listenRefusing(status: number, readBytes: number): Promise<string> {
    server = createHttpsServer(receiverCertificate, refuse(status, readBytes));
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    return `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  }

  const send = (url: string) => sender.send({ url, headers: {}, body: BODY, timeoutMs: 5_000 });

  it("a 413 after the first 16 KiB is recorded as the 413, every time", async () => {
    sender = make();
    const url = await listenRefusing(413, 16 * 1024);
    for (let i = 0; i < 5; i++) {
      expect(await send(url)).toMatchObject({
        status: 413,
        error: null,
        snippet: "refused with 413",
      });
    }
  });

  it("a 401 sent on the headers alone is recorded as the 401", async () => {
    sender = make();
    const url = await listenRefusing(401, 0);
    expect(await send(url)).toMatchObject({
      status: 401,
      error: null,
      snippet: "refused with 401",
    });
  });
});
