/**
 * hookline stops by closing its sender after the shutdown timeout, and only then its store. A
 * connection still being set up to a receiver that never finishes its handshake (a firewall
 * dropping packets, a stalled TLS terminator) cannot be cancelled; a sender thread must not stay
 * up for it, holding back the stop for seconds more.
 */
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ThreadedSender } from "../../src/engine/sender-threads.js";

describe("closing a threaded sender", () => {
  let server: Server | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await new Promise((r) => server?.close(r));
  });

  it("ends at once while a connection is still being set up", async () => {
    // Takes the TCP connection and never answers the TLS handshake.
    server = createServer((s) => {
      sockets.push(s);
      s.on("error", () => {});
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    const sender = new ThreadedSender({ threads: 1 });
    const result = await sender.send({
      url: `https://127.0.0.1:${port}/hook`,
      headers: {},
      body: Buffer.from("{}"),
      timeoutMs: 1_000,
    });
    expect(result).toMatchObject({ status: null, error: "timeout" });
    const started = Date.now();
    await sender.close();
    // A thread that stays up for the connection is ended 5 s into the close; one that exits
    // ends well before. 4 s, not 1: on a busy machine (the suite runs two files at once) a
    // thread's exit alone can take a second.
    expect(Date.now() - started).toBeLessThan(4_000);
  });
});
