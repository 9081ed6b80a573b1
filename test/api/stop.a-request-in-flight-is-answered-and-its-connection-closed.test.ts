/**
 * Stopping hookline closes the API's idle connections at once, but a request still in flight keeps
 * its connection until answered. Answered as keep-alive, that connection would then hold the stop
 * for the server's keep-alive timeout (72 s), and under steady traffic some request is always in
 * flight. Answers given while stopping say `Connection: close`, and the connection ends with them.
 */
import { connect, type Socket } from "node:net";
import { afterEach, expect, it } from "vitest";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { within } from "../support/within.js";

/** Far below the 72 s keep-alive timeout: tells a prompt stop from one held by the connection. */
const STOPS_WITHIN_MS = 20_000;

let h: TestHookline | undefined;
afterEach(async () => {
  await h?.stop().catch(() => undefined);
  h = undefined;
});

it("a request in flight as hookline stops is answered with Connection: close, and the stop ends", async () => {
  h = await startHookline();
  const { port } = new URL(h.url);
  const socket: Socket = connect(Number(port), "127.0.0.1");
  await new Promise<void>((resolve) => socket.once("connect", resolve));
  let answer = "";
  socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
  const ended = new Promise<void>((resolve) => socket.once("close", () => resolve()));

  // A keep-alive request whose body is still on its way when the stop begins.
  const body = JSON.stringify({ name: "in flight at stop" });
  socket.write(
    "POST /api/v1/app HTTP/1.1\r\nHost: hookline\r\nConnection: keep-alive\r\n" +
      `Authorization: Bearer ${h.token}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 5)}`,
  );
  await new Promise((r) => setTimeout(r, 100));
  const stopped = h.hookline.stop();
  await new Promise((r) => setTimeout(r, 100));
  socket.write(body.slice(5));

  await within(STOPS_WITHIN_MS, "the stop", stopped);
  await within(STOPS_WITHIN_MS, "the connection's end", ended);
  expect(answer).toMatch(/^HTTP\/1\.1 201 /);
  expect(answer.toLowerCase()).toContain("connection: close");
}, 60_000);
