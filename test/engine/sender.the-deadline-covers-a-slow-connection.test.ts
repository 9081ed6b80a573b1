/**
 * docs/delivery.md: an attempt's deadline (up to 30 s) covers connecting, waiting for the answer
 * and reading it. A connection still being set up (a TLS handshake the receiver has not finished)
 * must be given the whole deadline, not cut off by the HTTP client's own connect timeout of 10 s.
 */
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ExemptTargets } from "../../src/engine/guarded-connect.js";
import { HttpSender, type Sender } from "../../src/engine/sender.js";
import { ThreadedSender } from "../../src/engine/sender-threads.js";

describe("a connection that takes longer than 10 s to set up", () => {
  let server: Server | undefined;
  const sockets: Socket[] = [];
  const senders: Sender[] = [];
  afterEach(async () => {
    // Connections still being set up end first: a sender thread stays up until they have.
    for (const s of sockets.splice(0)) s.destroy();
    await Promise.all(senders.splice(0).map((s) => s.close()));
    await new Promise((r) => server?.close(r));
  });

  it("is waited for until the attempt's own deadline", async () => {
    // Takes the TCP connection and never answers the TLS handshake.
    server = createServer((s) => {
      sockets.push(s);
      s.on("error", () => {});
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    const exempt = new ExemptTargets();
    exempt.add("127.0.0.1", port);
    const guarded = { refusePrivateTargets: true, exemptTargets: exempt };
    senders.push(
      new HttpSender(),
      new HttpSender(guarded),
      new ThreadedSender({ threads: 1, ...guarded }),
    );
    const timeoutMs = 12_000;
    const results = await Promise.all(
      senders.map(async (sender) => {
        const started = Date.now();
        const result = await sender.send({
          url: `https://127.0.0.1:${port}/hook`,
          headers: {},
          body: Buffer.from("{}"),
          timeoutMs,
        });
        return { result, took: Date.now() - started };
      }),
    );
    for (const { result, took } of results) {
      expect(result).toMatchObject({ status: null, error: "timeout" });
      expect(result.errorDetail).toMatch(/12000 ms/);
      expect(took).toBeGreaterThanOrEqual(timeoutMs - 100);
    }
  });
});
