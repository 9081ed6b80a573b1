import type { Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Sender } from "../../src/engine/sender.js";
import { rawReceiver, type RawReceiver } from "../support/raw-receiver.js";
import { senders } from "../support/senders.js";

/**
 * undici bounds an answer's headers and hookline its interim answers and the body it reads, but
 * a status line that never ends, blank lines before it without end, or a chunk extension without
 * end were read as fast as the receiver sent them until the deadline: hundreds of MB a second on
 * loopback, a core spent on one endpoint for up to 30 s of every attempt.
 */

/** Sends `head`, then `filler` as fast as the connection takes it; counts what was written. */
function endless(head: string, filler: string, sent: { bytes: number }) {
  return (s: Socket) => {
    s.write(head);
    const pump = () => {
      while (s.writable && s.write(filler)) sent.bytes += filler.length;
    };
    s.on("drain", pump);
    pump();
  };
}

// Far longer than the test waits, so a request cut off by its deadline shows as a timeout.
const DEADLINE_MS = 20_000;

describe.each(senders)("an answer without end is cut off by its size (%s)", (_, make) => {
  let sender: Sender;
  let receiver: RawReceiver | null = null;
  afterEach(async () => {
    receiver?.close();
    await sender.close();
  });

  async function send(answer: (s: Socket) => void) {
    sender = make();
    receiver = await rawReceiver(answer);
    return sender.send({
      url: receiver.url(),
      headers: { "content-type": "application/json" },
      body: Buffer.from("{}"),
      timeoutMs: DEADLINE_MS,
    });
  }

  it.each([
    ["a status line that never ends", "HTTP/1.1 200 ", "a".repeat(16_384)],
    ["blank lines without end before the status line", "", "\r\n".repeat(8_192)],
  ])("%s is a network error saying no status line came", async (_, head, filler) => {
    const r = await send(endless(head, filler, { bytes: 0 }));
    expect(r).toMatchObject({ status: null, error: "network" });
    expect(r.errorDetail).toBe("no status line within the answer's first 1024 KiB");
  });

  it("a chunk extension without end keeps the 200, and is read no further", async () => {
    const sent = { bytes: 0 };
    const r = await send(
      endless(
        "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2;ext=",
        "a".repeat(16_384),
        sent,
      ),
    );
    expect(r).toMatchObject({ status: 200, error: null });
    // Read to the deadline, this is gigabytes; cut off, 1 MiB and what the sockets' buffers held.
    expect(sent.bytes).toBeLessThan(32 * 1024 * 1024);
  });

  it("a 200 whose 64 KiB body comes a byte a chunk is read to its end", async () => {
    const chunks = "1\r\nx\r\n".repeat(64 * 1024);
    const r = await send((s) =>
      s.write(`HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n${chunks}0\r\n\r\n`),
    );
    expect(r).toMatchObject({ status: 200, error: null, snippet: "x".repeat(4096) });
  });
});
