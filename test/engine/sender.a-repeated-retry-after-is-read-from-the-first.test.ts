/**
 * Retry-After is a single-valued header, but a receiver (or a proxy in front of it) may send it
 * twice. docs/delivery.md says the first one is judged; a combined "120, 7" would be malformed
 * and leave the ladder in force instead of the receiver's wish.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { HttpSender } from "../../src/engine/sender.js";

describe("a response with two Retry-After headers", () => {
  let server: Server | undefined;
  const sender = new HttpSender();
  afterEach(async () => {
    await sender.close();
    await new Promise((r) => server?.close(r));
  });

  it("is read by its first", async () => {
    server = createServer((_req, res) => {
      res.writeHead(503, [
        ["Retry-After", "120"],
        ["Retry-After", "7"],
      ]);
      res.end("busy");
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    const result = await sender.send({
      url: `http://127.0.0.1:${port}/busy`,
      headers: {},
      body: Buffer.from("{}"),
      timeoutMs: 5_000,
    });
    expect(result).toMatchObject({ status: 503, retryAfter: "120" });
  });
});
