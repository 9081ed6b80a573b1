/**
 * The receiver's answer and its reset both reach the socket before hookline writes: the write
 * fails at once (ECONNRESET), with the answer unread in the kernel. On a loaded machine this is
 * what happens part way through a large body when the receiver refuses it (sender thread, seen in
 * CI): the answer, a 413, must still be what the attempt records, not a retried reset. A receiver
 * that resets without a word is recorded as the reset it is, at once. Over TLS as over plain TCP.
 *
 * The receiver runs on a thread of its own; this thread is held from the moment its connection is
 * ready for the request (which the receiver waits to hear of) until the receiver has answered and
 * reset, so the first write is the first thing it does. The TLS receiver speaks TLS 1.2, where
 * the receiver finishes the handshake: in TLS 1.3 hookline does, and sends the request with its
 * last handshake message, before the receiver could answer.
 */
import { channel } from "node:diagnostics_channel";
import type { Socket } from "node:net";
import { Worker } from "node:worker_threads";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { HttpSender, type SendResult } from "../../src/engine/sender.js";
import { acceptingAnyCertificate, receiverCertificate } from "../support/tls.js";

const RECEIVER = `
const { parentPort, workerData } = require("node:worker_threads");
const net = require("node:net");
const tls = require("node:tls");
const flags = new Int32Array(workerData.flags);
// Without noDelay, an answer sent soon after the TLS handshake waits for the handshake's
// acknowledgement, and the reset drops it: no answer would reach hookline at all.
const server = net.createServer({ noDelay: true }, (raw) => {
  raw.on("error", () => {});
  raw.on("close", () => {
    Atomics.store(flags, 0, 1);
    Atomics.notify(flags, 0);
  });
  if (!workerData.tls) return answer(raw);
  const socket = new tls.TLSSocket(raw, { isServer: true, maxVersion: "TLSv1.2", ...workerData.tls });
  socket.on("error", () => {});
  socket.once("secure", () => answer(socket));
  function answer(socket) {
    // Answering before hookline has its connection would fail the connect instead.
    Promise.resolve(Atomics.waitAsync(flags, 1, 0, 10_000).value).then(() => {
      if (workerData.answer) socket.write(workerData.answer, () => raw.resetAndDestroy());
      else raw.resetAndDestroy();
    });
  }
});
server.listen(0, "127.0.0.1", () => parentPort.postMessage(server.address().port));
parentPort.on("message", () => server.close(() => process.exit(0)));
`;

const ready = channel("undici:client:connected");
let receiver: Worker | undefined;
let holdWhenReady: ((message: unknown) => void) | undefined;
let sender: HttpSender | undefined;
afterEach(async () => {
  vi.useRealTimers();
  if (holdWhenReady) ready.unsubscribe(holdWhenReady);
  await sender?.close();
  receiver?.postMessage("stop");
  await new Promise((r) => receiver?.once("exit", r));
});
let trustedNoMore: (() => void) | undefined;
beforeAll(() => (trustedNoMore = acceptingAnyCertificate()));
afterAll(() => trustedNoMore?.());

describe.each([
  ["plain TCP", "http", null],
  ["TLS", "https", receiverCertificate],
] as const)("over %s", (_, scheme, tls) => {
  /** One send to a receiver that sends `answer` (or nothing) and resets before hookline writes. */
  async function sendToResetting(answer: string): Promise<SendResult> {
    const flags = new SharedArrayBuffer(8);
    receiver = new Worker(RECEIVER, { eval: true, workerData: { flags, answer, tls } });
    const port = await new Promise<number>((r) => receiver!.once("message", r));
    holdWhenReady = (message) => {
      const { socket } = message as { socket: Socket };
      if (socket.remotePort !== port) return;
      const held = new Int32Array(flags);
      Atomics.store(held, 1, 1);
      Atomics.notify(held, 1);
      Atomics.wait(held, 0, 0, 10_000);
    };
    ready.subscribe(holdWhenReady);
    sender = new HttpSender();
    const result = await sender.send({
      url: `${scheme}://127.0.0.1:${port}/hook`,
      headers: {},
      body: Buffer.alloc(64 * 1024, "x"),
      timeoutMs: 5_000,
    });
    expect(Atomics.load(new Int32Array(flags), 0)).toBe(1);
    return result;
  }

  it("a write failing on a reset reads the answer already on the socket first", async () => {
    const result = await sendToResetting(
      "HTTP/1.1 413 Payload Too Large\r\nContent-Length: 17\r\n\r\npayload too large",
    );
    expect(result).toMatchObject({ status: 413, error: null, snippet: "payload too large" });
  });

  it("a write failing on a reset with nothing to read is the reset, without waiting", async () => {
    // With the clock stopped, neither the attempt's deadline nor any bounded wait can end the
    // attempt: only the connection itself can.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const result = await sendToResetting("");
    expect(result).toMatchObject({ status: null, error: "connection_reset", snippet: "" });
    // The receiver reset the connection; "other side closed" would tell its owner it closed it.
    expect(result.errorDetail).toMatch(/^ECONNRESET/);
  });

  it("an answer ended by the connection's end, then a reset, is read to its end first", async () => {
    const result = await sendToResetting(
      "HTTP/1.1 413 Payload Too Large\r\nConnection: close\r\n\r\npayload too large",
    );
    expect(result).toMatchObject({ status: 413, error: null, snippet: "payload too large" });
  });
});
