import { afterEach, describe, expect, it } from "vitest";
import type { Sender } from "../../src/engine/sender.js";
import { rawReceiver, type RawReceiver } from "../support/raw-receiver.js";
import { senders } from "../support/senders.js";

/**
 * A redirect is not followed, so its `Location` is all that tells the user the endpoint's right
 * URL: kept as the answer's `errorDetail` whichever way hookline sends, resolved against the
 * endpoint's URL, cut at 2 KiB and with control characters made visible, since it is the
 * receiver's text shown on a dashboard and a terminal. Other answers carry no detail.
 */
const answers: [string, string, string | null | RegExp][] = [
  [
    "an absolute target",
    "302 Found\r\nlocation: https://a.example/x?y=1",
    "Location: https://a.example/x?y=1",
  ],
  ["a relative target", "307 Temporary Redirect\r\nlocation: ../v2/", "Location: http://HOST/v2/"],
  ["no Location at all", "301 Moved Permanently", null],
  ["a Location on a 200", "200 OK\r\nlocation: https://a.example/", null],
  [
    "a long target",
    `301 Moved\r\nlocation: https://a.example/${"a".repeat(5000)}`,
    /^Location: https:\/\/a\.example\/a{2030}…$/,
  ],
  // A URL resolved has no control characters left; one that is not a URL is kept as sent.
  [
    "a tab in a target that is no URL",
    "301 Moved\r\nlocation: http://[a\tb",
    "Location: http://[a\uFFFDb",
  ],
];

describe.each(senders)("a redirect's Location is kept (%s)", (_, make) => {
  let sender: Sender;
  let receiver: RawReceiver | null = null;
  afterEach(async () => {
    receiver?.close();
    await sender.close();
  });

  it.each(answers)("%s", async (_, head, detail) => {
    sender = make();
    receiver = await rawReceiver((s) =>
      s.write(`HTTP/1.1 ${head}\r\ncontent-length: 5\r\n\r\nmoved`),
    );
    const r = await sender.send({
      url: receiver.url("/v1/hook"),
      headers: { "content-type": "application/json" },
      body: Buffer.from("{}"),
      timeoutMs: 2_000,
    });
    expect(r).toMatchObject({ error: null, snippet: "moved" });
    if (detail instanceof RegExp) expect(r.errorDetail).toMatch(detail);
    else expect(r.errorDetail).toBe(detail?.replace("HOST", receiver.host) ?? null);
  });
});
