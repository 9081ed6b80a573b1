/**
 * A receiver that takes the connection and stops reading: hookline's write of a large body is
 * still under way when the attempt's deadline comes, and hookline ends the connection itself. A
 * write that fails because the connection is gone waits for the read side first
 * (answer-before-write-error.ts); this one must stay what it is, a timeout, on both ways
 * hookline sends.
 */
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Sender } from "../../src/engine/sender.js";
import { senders } from "../support/senders.js";

/** Far more than the two ends' socket buffers hold on loopback (a few MB each). */
const BODY = Buffer.alloc(32 * 1024 * 1024, "x");

describe.each(senders)("a deadline reached while hookline writes (%s)", (_, make) => {
  let sender: Sender | undefined;
  let server: Server | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    await sender?.close();
    for (const s of sockets.splice(0)) s.destroy();
    await new Promise((r) => server?.close(r));
  });

  it("is a timeout", async () => {
    let taken!: () => void;
    const connected = new Promise<void>((r) => (taken = r));
    server = createServer((s) => {
      sockets.push(s);
      s.on("error", () => {});
      s.pause();
      taken();
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    sender = make();
    const result = await sender.send({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
      headers: {},
      body: BODY,
      timeoutMs: 500,
    });
    await connected;
    expect(result).toMatchObject({ status: null, error: "timeout", snippet: "" });
    expect(result.errorDetail).toMatch(/^no (answer|connection) within 500 ms$/);
  });
});
