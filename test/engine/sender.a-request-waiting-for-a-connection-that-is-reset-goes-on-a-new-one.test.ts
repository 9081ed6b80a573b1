/**
 * A receiver that answers (a 413 for a body over its limit) and then drops the connection with
 * request bytes unread sends a reset, and over TLS the reset can reach hookline a turn of the
 * loop or more after the answer. Meanwhile the answered connection is idle and kept alive, so the
 * next delivery to that endpoint is queued on it; undici fails every request queued on an idle
 * connection with the reset that ends it, though none of them was written. That delivery was
 * recorded as `connection_reset` (retried, counted toward the circuit breaker) for a request the
 * receiver never saw. It is sent on a new connection instead, and its answer recorded.
 *
 * The receiver resets the first connection at the moment the next request is queued on it, so
 * the reset is read before the request could be written, as on a loaded machine.
 */
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { TLSSocket } from "node:tls";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { HttpSender } from "../../src/engine/sender.js";
import { acceptingAnyCertificate, receiverCertificate } from "../support/tls.js";

const REFUSAL = "HTTP/1.1 413 Payload Too Large\r\nContent-Length: 9\r\n\r\ntoo large";

let sender: HttpSender | undefined;
let server: Server | undefined;
/** Every connection's TCP socket, in order; each request is refused, the connection kept. */
let connections: Socket[] = [];
afterEach(async () => {
  await sender?.close();
  // A receiver that stopped reading does not see hookline close its connection.
  for (const c of connections) c.destroy();
  connections = [];
  await new Promise((r) => server?.close(r));
});
let trustedNoMore: (() => void) | undefined;
beforeAll(() => (trustedNoMore = acceptingAnyCertificate()));
afterAll(() => trustedNoMore?.());

describe.each([
  ["plain TCP", "http", null],
  ["TLS", "https", receiverCertificate],
] as const)("over %s", (_, scheme, tls) => {
  it("a request queued on a connection reset before it was written is sent on a new one", async () => {
    server = createServer({ noDelay: true }, (raw) => {
      raw.on("error", () => {});
      connections.push(raw);
      const socket = tls ? new TLSSocket(raw, { isServer: true, ...tls }) : raw;
      socket.on("error", () => {});
      socket.on("data", () => socket.write(REFUSAL));
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    const url = `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    sender = new HttpSender();
    const send = () =>
      sender!.send({ url, headers: {}, body: Buffer.from("{}"), timeoutMs: 5_000 });

    const refused = { status: 413, error: null, snippet: "too large" };
    expect(await send()).toMatchObject(refused);
    // undici takes a connection back a turn of the loop after its answer.
    await new Promise((r) => setImmediate(r));
    const next = send();
    connections[0]!.resetAndDestroy();
    expect(await next).toMatchObject(refused);
    expect(connections).toHaveLength(2);
  });

  it("a request queued behind a body still being written when the reset comes goes on a new one", async () => {
    // The receiver refuses at the first bytes and reads no more: hookline's body is still being
    // written when the answer comes, and the next request, queued on the connection kept alive,
    // waits behind it; the reset ends the connection before any of that request was written.
    server = createServer({ noDelay: true }, (raw) => {
      raw.on("error", () => {});
      connections.push(raw);
      const socket = tls ? new TLSSocket(raw, { isServer: true, ...tls }) : raw;
      socket.on("error", () => {});
      socket.once("data", () => {
        socket.pause();
        socket.write(REFUSAL);
      });
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    const url = `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    sender = new HttpSender();
    // Far more than loopback's buffers hold, so its writing is still under way.
    const body = Buffer.alloc(32 * 1024 * 1024, "x");
    const send = () => sender!.send({ url, headers: {}, body, timeoutMs: 5_000 });

    const refused = { status: 413, error: null, snippet: "too large" };
    expect(await send()).toMatchObject(refused);
    await new Promise((r) => setImmediate(r));
    const next = send();
    await new Promise((r) => setImmediate(r));
    connections[0]!.resetAndDestroy();
    expect(await next).toMatchObject(refused);
    expect(connections).toHaveLength(2);
  });
});
