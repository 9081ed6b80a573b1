import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Sender } from "../../src/engine/sender.js";
import { senders } from "../support/senders.js";

/**
 * A receiver that answers `102 Processing` over and over, as fast as hookline reads, never
 * reaching its real answer. A body is cut off at 64 KiB and headers are refused past 64 KiB, but
 * interim answers were read past without a bound until the deadline: hundreds of MB in a 15 s
 * attempt, a sender thread's core spent on one endpoint, and every other endpoint's deliveries
 * on that thread slowed.
 */
const INTERIM = Buffer.from("HTTP/1.1 102 Processing\r\n\r\n".repeat(1000), "latin1");

describe.each(senders)("endless interim answers are cut off (%s)", (_, make) => {
  let sender: Sender;
  let server: Server | null = null;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets) s.destroy();
    server?.close();
    await sender.close();
  });

  async function flooding(): Promise<{ url: string; written: () => number }> {
    let written = 0;
    server = createServer((s) => {
      sockets.push(s);
      s.on("error", () => {});
      s.once("data", () => {
        const pump = () => {
          while (!s.destroyed && s.write(INTERIM)) written += INTERIM.length;
        };
        s.on("drain", pump);
        pump();
      });
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    return { url: `http://127.0.0.1:${port}/hook`, written: () => written };
  }

  it("a long 100 Continue within the bound is read past to the answer after it", async () => {
    sender = make();
    // 30 KiB of headers on the 100, coming in pieces: once more than 16 KiB of it was held it
    // went to undici's parser, which takes any 100 for a broken response.
    const hints = Array.from({ length: 30 }, (_, i) => `x-hint-${i}: ${"h".repeat(1000)}\r\n`);
    server = createServer((s) => {
      sockets.push(s);
      s.on("error", () => {});
      s.once("data", async () => {
        // A line at a time, so that the 100 arrives in many reads and is held as it comes.
        s.write("HTTP/1.1 100 Continue\r\n");
        for (const line of [...hints, "\r\n", "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"]) {
          await new Promise((r) => setTimeout(r, 2));
          if (s.writable) s.write(line);
        }
      });
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    const r = await sender.send({
      url: `http://127.0.0.1:${port}/hook`,
      headers: { "content-type": "application/json" },
      body: Buffer.from("{}"),
      timeoutMs: 5_000,
    });
    expect(r).toMatchObject({ status: 200, error: null, snippet: "ok" });
  });

  it("a flood of 102s fails the attempt soon, as a network error naming it", async () => {
    sender = make();
    const { url, written } = await flooding();
    const started = performance.now();
    const r = await sender.send({
      url,
      headers: { "content-type": "application/json" },
      body: Buffer.from("{}"),
      timeoutMs: 10_000,
    });
    expect(r).toMatchObject({ status: null, error: "network" });
    expect(r.errorDetail).toBe("interim (1xx) answers over 64 KiB");
    // Cut off at the bound, long before the deadline; what the receiver got to write is what
    // loopback's socket buffers hold, not what it could send in 10 s.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(written()).toBeLessThan(32 * 1024 * 1024);
  });
});
