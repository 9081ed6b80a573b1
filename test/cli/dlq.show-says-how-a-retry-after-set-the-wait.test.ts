/**
 * `hookline dlq show` prints each attempt's status, and a record whose first retry came 2 min (or
 * 4 h) after its first attempt, not at the ladder's 5 s, said nothing of why: the receiver had
 * asked for it with a Retry-After, which the API now gives as the attempt's `retryAfter`. The
 * attempt's result now says what it asked for, and where hookline capped it, at what.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { askingOnceThenRefusing, recordsAfterARetryAfter, type RecordOut } from "../support/dlq.js";
import { runDlq, startFakeApi } from "../support/fake-api.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

let h: TestHookline;
let rx: Receiver;
let records: Record<string, RecordOut>;

beforeAll(async () => {
  h = await startHookline();
  rx = await Receiver.start(askingOnceThenRefusing({ "/capped": String(6 * 3600) }));
  ({ records } = await recordsAfterARetryAfter(h, (p) => rx.url(p), ["/asked", "/capped"]));
});
afterAll(async () => {
  await h?.stop();
  await rx?.close();
});

/** The attempts' lines of `hookline dlq show` for the record of `path`, without their bodies. */
async function attemptLines(path: string): Promise<string[]> {
  const out = await runDlq(h.url, ["show", records[path]!.id], Date.now(), h.token);
  const table = out.slice(
    out.indexOf("\nattempts\n") + "\nattempts\n".length,
    out.indexOf("\n\nhistory"),
  );
  return table.split("\n").filter((l) => !l.startsWith("    "));
}

it("says the wait the receiver's Retry-After asked for beside the attempt's status", async () => {
  const lines = await attemptLines("/asked");
  expect(lines[0]).toMatch(/^AT\s+TRIGGER\s+RESULT\s+MS$/);
  expect(lines[1]).toMatch(/\sfirst\s+HTTP 503, asked to wait 2m \(Retry-After\)\s+\d+$/);
  // The retry after it had none.
  expect(lines[2]).toMatch(/\sretry\s+HTTP 400\s+\d+$/);
});

it("says what hookline capped a longer wait at", async () => {
  const lines = await attemptLines("/capped");
  expect(lines[1]).toMatch(
    /\sfirst\s+HTTP 503, asked to wait 6h \(Retry-After\), capped at 4h\s+\d+$/,
  );
});

it("rounds a wait given as a date to the second, as the dashboard does", async () => {
  // A Retry-After given as an HTTP date asks for the time until then: 119.6 s, say, which the
  // command floored to "1m 59s" where the dashboard said 2 min.
  const { id } = records["/asked"]!;
  const { body: record } = await h.api<{ attempts: { retryAfter: unknown }[] }>(
    "GET",
    `/api/v1/dlq/${id}`,
  );
  record.attempts[0]!.retryAfter = { askedSeconds: 119.6, waitSeconds: 119.6 };
  const api = await startFakeApi(200, record);
  try {
    const out = await runDlq(api.url, ["show", id], Date.now());
    expect(out).toMatch(/HTTP 503, asked to wait 2m \(Retry-After\)\s/);
  } finally {
    await api.close();
  }
});
