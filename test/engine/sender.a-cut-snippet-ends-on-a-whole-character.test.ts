/**
 * docs/delivery.md: at most 4 KiB of the response body is kept, as UTF-8 text, and a longer body
 * is cut off. Cut in the middle of a character, the kept text must end before that character,
 * not with a U+FFFD the receiver never sent.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Sender } from "../../src/engine/sender.js";
import { senders } from "../support/senders.js";

describe.each(senders)("a response body longer than 4 KiB (%s)", (_, make) => {
  let server: Server | undefined;
  let sender: Sender | undefined;
  afterEach(async () => {
    await sender?.close();
    await new Promise((r) => server?.close(r));
  });

  it("is kept up to the last character that fits whole", async () => {
    let text = "";
    server = createServer((req, res) => {
      req.resume();
      res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
      res.end(text);
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    sender = make();
    const kept: string[] = [];
    // ASCII, then characters of 2, 3 and 4 bytes: each length puts the 4,096th byte elsewhere.
    for (const ascii of [4094, 4095, 4093, 4091, 4090]) {
      text = `${"a".repeat(ascii)}é€😀 and more`;
      const r = await sender.send({
        url: `http://127.0.0.1:${port}/hook`,
        headers: {},
        body: Buffer.from("{}"),
        timeoutMs: 5_000,
      });
      expect(r.status).toBe(500);
      expect(text.startsWith(r.snippet)).toBe(true);
      expect(Buffer.byteLength(r.snippet)).toBeGreaterThan(4096 - 4);
      kept.push(r.snippet.slice(ascii));
    }
    // 4,094 + é (2 bytes) fit exactly; 4,095 + é do not, nor 4,093 + é + € (3), nor 4,090 + é
    // + € + 😀 (4).
    expect(kept).toEqual(["é", "", "é", "é€", "é€"]);
  });
});
