/**
 * The receiver's answer and its reset both reach the socket before hookline writes: the write
 * fails at once (ECONNRESET), with the answer unread in the kernel. On a loaded machine this is
 * what happens part way through a large body when the receiver refuses it (sender thread, seen in
 * CI): the answer, a 413, must still be what the attempt records, not a retried reset. A receiver
 * that resets without a word is recorded as the reset it is, at once.
 *
 * The receiver runs on a thread of its own; this thread is held from the moment its connection is
 * made (which the receiver waits to hear of) until the receiver has answered and reset, so the
 * first write is the first thing it does.
 */
import { channel } from "node:diagnostics_channel";
import type { Socket } from "node:net";
import { Worker } from "node:worker_threads";
import { afterEach, expect, it, vi } from "vitest";
import { HttpSender, type SendResult } from "../../src/engine/sender.js";

const RECEIVER = `
const { parentPort, workerData } = require("node:worker_threads");
const net = require("node:net");
const done = new Int32Array(workerData.done);
const server = net.createServer((socket) => {
  socket.on("error", () => {});
  // Answering before hookline has seen its connection made would fail the connect instead.
  Atomics.wait(done, 1, 0, 10_000);
  socket.on("close", () => {
    Atomics.store(done, 0, 1);
    Atomics.notify(done, 0);
  });
  if (workerData.answer) socket.write(workerData.answer, () => socket.resetAndDestroy());
  else socket.resetAndDestroy();
});
server.listen(0, "127.0.0.1", () => parentPort.postMessage(server.address().port));
parentPort.on("message", () => server.close(() => process.exit(0)));
`;

const connected = channel("net.client.socket");
let receiver: Worker | undefined;
let holdOnConnect: ((message: unknown) => void) | undefined;
let sender: HttpSender | undefined;
afterEach(async () => {
  vi.useRealTimers();
  if (holdOnConnect) connected.unsubscribe(holdOnConnect);
  await sender?.close();
  receiver?.postMessage("stop");
  await new Promise((r) => receiver?.once("exit", r));
});

/** One send to a receiver that sends `answer` (or nothing) and resets before hookline writes. */
async function sendToResetting(answer: string): Promise<SendResult> {
  const done = new SharedArrayBuffer(8);
  receiver = new Worker(RECEIVER, { eval: true, workerData: { done, answer } });
  const port = await new Promise<number>((r) => receiver!.once("message", r));
  holdOnConnect = (message) => {
    const { socket } = message as { socket: Socket };
    socket.once("connect", () => {
      if (socket.remotePort !== port) return;
      const flags = new Int32Array(done);
      Atomics.store(flags, 1, 1);
      Atomics.notify(flags, 1);
      Atomics.wait(flags, 0, 0, 10_000);
    });
  };
  connected.subscribe(holdOnConnect);
  sender = new HttpSender();
  const result = await sender.send({
    url: `http://127.0.0.1:${port}/hook`,
    headers: {},
    body: Buffer.alloc(64 * 1024, "x"),
    timeoutMs: 5_000,
  });
  expect(Atomics.load(new Int32Array(done), 0)).toBe(1);
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
