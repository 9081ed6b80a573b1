import { afterEach, describe, expect, it } from "vitest";
import type { Sender } from "../../src/engine/sender.js";
import { rawReceiver, type RawReceiver } from "../support/raw-receiver.js";
import { senders } from "../support/senders.js";

/**
 * A status line undici's parser refuses with an assertion of its own (a 101 to a request that
 * asked for no upgrade, a status under 100) was recorded with the assertion's words, "The
 * expression evaluated to a falsy value: assert(upgrade)", in the attempt the dashboard and the
 * customer's portal show: nothing there says what the receiver answered.
 */
const answers: [string, string, RegExp][] = [
  [
    "a 101 to a request that asked for no upgrade",
    "HTTP/1.1 101 Switching Protocols\r\n\r\n",
    /^the answer was HTTP 101 Switching Protocols, to a request that asked for no upgrade$/,
  ],
  [
    // With the headers of an upgrade undici drops the connection itself, as "bad upgrade": the
    // attempt was recorded as a reset connection, which the receiver never did.
    "a 101 naming the protocol it switches to",
    "HTTP/1.1 101 Switching Protocols\r\nconnection: upgrade\r\nupgrade: websocket\r\n\r\n",
    /^the answer was HTTP 101 Switching Protocols, to a request that asked for no upgrade$/,
  ],
  [
    "a 101 after an interim answer",
    "HTTP/1.1 103 Early Hints\r\n\r\nHTTP/1.1 101 Switching Protocols\r\n\r\n",
    /^the answer was HTTP 101 Switching Protocols, to a request that asked for no upgrade$/,
  ],
  [
    "a status under 100",
    "HTTP/1.1 099 Odd\r\ncontent-length: 0\r\n\r\n",
    /^the answer's status is under 100, which HTTP does not have$/,
  ],
];

describe.each(senders)("a status line hookline cannot take is named (%s)", (_, make) => {
  let sender: Sender;
  let receiver: RawReceiver | null = null;
  afterEach(async () => {
    receiver?.close();
    await sender.close();
  });

  it.each(answers)("%s is a network error saying what came back", async (_, answer, detail) => {
    sender = make();
    receiver = await rawReceiver((s) => s.write(answer));
    const r = await sender.send({
      url: receiver.url(),
      headers: { "content-type": "application/json" },
      body: Buffer.from("{}"),
      timeoutMs: 2_000,
    });
    expect(r).toMatchObject({ status: null, error: "network" });
    expect(r.errorDetail).toMatch(detail);
  });
});
