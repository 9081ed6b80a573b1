import { afterEach, describe, expect, it } from "vitest";
import type { Sender } from "../../src/engine/sender.js";
import { rawReceiver, type RawReceiver } from "../support/raw-receiver.js";
import { senders } from "../support/senders.js";

/**
 * Once an answer's headers had given a Content-Length, undici reported any fault in the rest of
 * them (Content-Length given twice, Transfer-Encoding beside it, a control character, a header
 * folded over two lines) as "Response body length does not match content-length header". The
 * attempt showed that in the dashboard, the portal and the dead-letter record for a 200 whose
 * body was exactly as long as it said, sending its receiver's team to look at the wrong thing.
 */
const answers: [string, string][] = [
  [
    "a Content-Length given twice, the same both times",
    "HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 2\r\n\r\nok",
  ],
  [
    "a Content-Length then a Transfer-Encoding",
    "HTTP/1.1 200 OK\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
  ],
  [
    "a NUL in a header after the Content-Length",
    "HTTP/1.1 200 OK\r\ncontent-length: 2\r\nx-trace: a\0b\r\n\r\nok",
  ],
  [
    "a header folded over two lines after the Content-Length",
    "HTTP/1.1 200 OK\r\ncontent-length: 2\r\nx-trace: a\r\n b\r\n\r\nok",
  ],
];

describe.each(senders)("headers malformed after a Content-Length are named (%s)", (_, make) => {
  let sender: Sender;
  let receiver: RawReceiver | null = null;
  afterEach(async () => {
    receiver?.close();
    await sender.close();
  });

  it.each(answers)("%s is a network error saying the headers are malformed", async (_, answer) => {
    sender = make();
    receiver = await rawReceiver((s) => s.end(answer));
    const r = await sender.send({
      url: receiver.url(),
      headers: { "content-type": "application/json" },
      body: Buffer.from("{}"),
      timeoutMs: 2_000,
    });
    expect(r).toMatchObject({ status: null, error: "network" });
    expect(r.errorDetail).toMatch(/^the answer's headers are malformed/);
    expect(r.errorDetail).not.toMatch(/body length/);
  });

  it("a body shorter than its Content-Length still keeps the status and what came", async () => {
    sender = make();
    receiver = await rawReceiver((s) =>
      s.end("HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nshort"),
    );
    const r = await sender.send({
      url: receiver.url(),
      headers: { "content-type": "application/json" },
      body: Buffer.from("{}"),
      timeoutMs: 2_000,
    });
    expect(r).toMatchObject({ status: 200, error: null, snippet: "short" });
  });
});
