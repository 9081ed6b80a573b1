/**
 * A client that sends part of a request and then nothing (a body cut short, headers never ended)
 * holds a stop only for HOOKLINE_SHUTDOWN_TIMEOUT_MS: its connection is then closed. Node stops
 * timing requests out once the server closes, so before, such a client held the stop for good
 * (SIGTERM never exited, and deliveries went on being claimed meanwhile). A request that has
 * arrived and is being answered is not cut: it is answered, as before.
 */
import { connect, type Socket } from "node:net";
import { afterEach, expect, it } from "vitest";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { within } from "../support/within.js";

const SHUTDOWN_TIMEOUT_MS = 500;
/** Far beyond the shutdown timeout, far below a hang. */
const STOPS_WITHIN_MS = 15_000;

let h: TestHookline | undefined;
afterEach(async () => {
  await h?.stop().catch(() => undefined);
  h = undefined;
});

/** A connection to `h` and a promise that it closed. */
async function connection(): Promise<{ socket: Socket; closed: Promise<void> }> {
  const { port } = new URL(h!.url);
  const socket = connect(Number(port), "127.0.0.1");
  socket.on("error", () => undefined);
  await new Promise<void>((resolve) => socket.once("connect", resolve));
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  return { socket, closed };
}

it("closes the connection of a request whose body stopped arriving once the shutdown timeout passed", async () => {
  h = await startHookline({ env: { HOOKLINE_SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS) } });
  const halfBody = await connection();
  halfBody.socket.write(
    "POST /api/v1/app HTTP/1.1\r\nHost: hookline\r\n" +
      `Authorization: Bearer ${h.token}\r\nContent-Type: application/json\r\n` +
      'Content-Length: 100\r\n\r\n{"name":',
  );
  const halfHeaders = await connection();
  halfHeaders.socket.write("GET /api/v1/health HTTP/1.1\r\nHost: hook");
  await new Promise((r) => setTimeout(r, 100));

  const stopping = h;
  h = undefined;
  const began = performance.now();
  await within(STOPS_WITHIN_MS, "the stop", stopping.hookline.stop());
  expect(performance.now() - began).toBeGreaterThanOrEqual(SHUTDOWN_TIMEOUT_MS - 50);
  await within(STOPS_WITHIN_MS, "the half-sent body's connection", halfBody.closed);
  await within(STOPS_WITHIN_MS, "the half-sent headers' connection", halfHeaders.closed);
}, 60_000);
