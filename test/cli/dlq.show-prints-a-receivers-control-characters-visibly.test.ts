/**
 * `hookline dlq show` prints what the receiver answered, and the receiver is someone else's
 * server. Its bytes went to the operator's terminal as they were: an escape sequence in a 500's
 * body could clear the screen, hide lines, retitle the window or (OSC 52) write the clipboard.
 * Control characters are now printed as visible escapes (`\x1b`), the text around them as it was;
 * so are the Unicode controls that reorder what a terminal shows (a right-to-left override).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { runDlq, startFakeApi, type FakeApi } from "../support/fake-api.js";

const HOSTILE = "upstream down\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07\r\u009b31mok\x7f";

const RECORD = {
  id: "dlq_1",
  state: "open",
  failureClass: "exhausted",
  reason: "all 1 attempts failed; last: HTTP 500",
  appId: "app_1",
  endpointId: "ep_1",
  messageId: "msg_1",
  eventId: null,
  eventType: "invoice.failed",
  finalStatus: 500,
  finalError: null,
  firstAttemptAt: "2026-03-02T09:40:00.000Z",
  lastAttemptAt: "2026-03-02T09:40:00.000Z",
  deadLetteredAt: "2026-03-02T09:40:00.000Z",
  replayCount: 0,
  failedReplays: 0,
  attempts: [
    {
      at: "2026-03-02T09:40:00.000Z",
      trigger: "first",
      status: 500,
      error: null,
      durationMs: 12,
      response: `${HOSTILE}\nsecond line\tend`,
      errorDetail: null,
    },
    {
      at: "2026-03-02T09:41:00.000Z",
      trigger: "replay",
      status: null,
      error: "tls",
      durationMs: 3,
      response: "",
      errorDetail: "certificate for \x1b[8mhidden\x1b[0m",
    },
    {
      at: "2026-03-02T09:42:00.000Z",
      trigger: "replay",
      status: 500,
      error: null,
      durationMs: 4,
      response: "refund \u202e001\u202c ok\u2028next",
      errorDetail: null,
    },
  ],
  history: [],
  payload: { invoice: 1 },
};

let api: FakeApi;
beforeAll(async () => {
  api = await startFakeApi(200, RECORD);
});
afterAll(() => api.close());

it("prints the receiver's control characters as escapes, its lines and tabs as they are", async () => {
  const out = await runDlq(api.url, ["show", "dlq_1"], Date.parse("2026-03-02T10:00:00Z"));
  expect(out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
  expect(out).toContain(
    "    upstream down\\x1b[2J\\x1b]52;c;cm0gLXJmIH4=\\x07\\x0d\\x9b31mok\\x7f\n",
  );
  expect(out).toContain("    second line\tend\n");
  expect(out).toContain("    certificate for \\x1b[8mhidden\\x1b[0m\n");
  expect(out).not.toMatch(/[\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
  expect(out).toContain("    refund \\u202e001\\u202c ok\\u2028next\n");
});
