/**
 * docs/receiving.md: response headers of up to 64 KiB in all are read, so a receiver that answers
 * 200 with many or long headers (cookies, tracing, a proxy's additions) is a success. Past that
 * the status cannot be read: the attempt fails, with a detail saying why.
 */
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Sender } from "../../src/engine/sender.js";
import { senders } from "../support/senders.js";

/** A receiver answering 200 with headers of about `kib` KiB in all. */
async function answeringWithHeaders(
  kib: number,
): Promise<{ server: Server & { sockets: Socket[] } }> {
  const sockets: Socket[] = [];
  const lines: string[] = [];
  for (let i = 0; i < kib; i++) lines.push(`x-h${i}: ${"v".repeat(1000)}\r\n`);
  const head = `HTTP/1.1 200 OK\r\ncontent-length: 2\r\n${lines.join("")}\r\nok`;
  const server = createServer((s) => {
    sockets.push(s);
    s.on("error", () => {});
    s.once("data", () => s.write(head));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server: Object.assign(server, { sockets }) };
}

const request = (url: string) => ({
  url,
  headers: { "content-type": "application/json" },
  body: Buffer.from("{}"),
  timeoutMs: 5_000,
});

describe.each(senders)("response headers longer than 16 KiB (%s)", (_, make) => {
  let sender: Sender | undefined;
  let server: (Server & { sockets: Socket[] }) | undefined;
  afterEach(async () => {
    await sender?.close();
    for (const s of server?.sockets ?? []) s.destroy();
    if (server) await new Promise((r) => server!.close(r));
    server = undefined;
  });

  it("of 40 KiB are read, and the 200 is a 200", async () => {
    ({ server } = await answeringWithHeaders(40));
    sender = make();
    const r = await sender.send(request(urlOf(server)));
    expect(r).toMatchObject({ status: 200, error: null, snippet: "ok" });
  });

  it("past 64 KiB fail the attempt with a detail saying so", async () => {
    ({ server } = await answeringWithHeaders(80));
    sender = make();
    const r = await sender.send(request(urlOf(server)));
    expect(r).toMatchObject({ status: null, error: "network" });
    expect(r.errorDetail).toBe("response headers over 64 KiB");
  });
});

function urlOf(server: Server): string {
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}
