/**
 * `hookline dlq show` prints each attempt's status, and a record whose first retry came 2 min (or
 * 4 h) after its first attempt, not at the ladder's 5 s, said nothing of why: the receiver had
 * asked for it with a Retry-After, which the API now gives as the attempt's `retryAfter`. The
 * attempt's result now says what it asked for, and where hookline capped it, at what. One asking
 * for no wait (`Retry-After: 0`, or a date already past), whose retry hookline made due at once,
 * read "asked to wait 0s": it now says the receiver asked for no wait, in the dashboard's words,
 * as it does for a date a few milliseconds ahead, which the dashboard reads as 0. One hookline
 * ignored (a wait past 24 h, or neither a number nor a date), after which the ladder set the retry
 * seconds later, said nothing either: the attempt now says what was ignored and why.
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
  rx = await Receiver.start(
    askingOnceThenRefusing({
      "/capped": String(6 * 3600),
      "/at-once": "0",
      "/past-a-day": String(2 * 86_400),
      "/malformed": "after lunch",
    }),
  );
  ({ records } = await recordsAfterARetryAfter(
    h,
    (p) => rx.url(p),
    ["/asked", "/capped", "/past-a-day", "/malformed"],
    ["/at-once"],
  ));
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

it("says that a receiver asking for no wait asked for no wait, as the dashboard does", async () => {
  const lines = await attemptLines("/at-once");
  expect(lines[1]).toMatch(/\sfirst\s+HTTP 503, asked for no wait \(Retry-After\)\s+\d+$/);
  expect(lines[2]).toMatch(/\sretry\s+HTTP 400\s+\d+$/);
});

it("says that hookline ignored a wait past 24 h, and the wait asked for", async () => {
  const lines = await attemptLines("/past-a-day");
  expect(lines[1]).toMatch(
    /\sfirst\s+HTTP 503, asked to wait 2d \(Retry-After\), ignored: over 24h\s+\d+$/,
  );
  expect(lines[2]).toMatch(/\sretry\s+HTTP 400\s+\d+$/);
});

it("says that hookline ignored a Retry-After neither a number nor a date, quoting it", async () => {
  const lines = await attemptLines("/malformed");
  expect(lines[1]).toMatch(
    /\sfirst\s+HTTP 503, Retry-After "after lunch" ignored: not a number or date\s+\d+$/,
  );
  expect(lines[2]).toMatch(/\sretry\s+HTTP 400\s+\d+$/);
});

/**
 * `hookline dlq show` of the "/asked" record with its first attempt's `retryAfter` as given, or
 * its `retryAfterIgnored` as given in its place.
 */
async function showWith(
  retryAfter: { askedSeconds: number; waitSeconds: number } | null,
  retryAfterIgnored: { reason: "too-long"; askedSeconds: number } | null = null,
) {
  const { id } = records["/asked"]!;
  const { body: record } = await h.api<{
    attempts: { retryAfter: unknown; retryAfterIgnored: unknown }[];
  }>("GET", `/api/v1/dlq/${id}`);
  record.attempts[0]!.retryAfter = retryAfter;
  record.attempts[0]!.retryAfterIgnored = retryAfterIgnored;
  const api = await startFakeApi(200, record);
  try {
    return await runDlq(api.url, ["show", id], Date.now());
  } finally {
    await api.close();
  }
}

it("says a wait under half a second, which a date a moment ahead asks for, is under 1s", async () => {
  // A Retry-After date 0.3 s ahead is a wait hookline keeps, not none: "0s" said otherwise.
  const out = await showWith({ askedSeconds: 0.3, waitSeconds: 0.3 });
  expect(out).toMatch(/HTTP 503, asked to wait under 1s \(Retry-After\)\s/);
});

it("says a wait the dashboard reads as 0, which a date a moment ahead asks for, is no wait", async () => {
  // 0.037 s: "under 1s" here, while the dashboard said the endpoint asked for no wait.
  const out = await showWith({ askedSeconds: 0.037, waitSeconds: 0.037 });
  expect(out).toMatch(/HTTP 503, asked for no wait \(Retry-After\)\s/);
});

it("rounds a wait given as a date to the second, as the dashboard does", async () => {
  // A Retry-After given as an HTTP date asks for the time until then: 119.6 s, say, which the
  // command floored to "1m 59s" where the dashboard said 2 min.
  const out = await showWith({ askedSeconds: 119.6, waitSeconds: 119.6 });
  expect(out).toMatch(/HTTP 503, asked to wait 2m \(Retry-After\)\s/);
});

it("says an ignored wait past a year is over a year, not a number of days", async () => {
  // 309 digits or more are kept as Number.MAX_VALUE ms: "asked to wait 2.08e+300d" said nothing.
  for (const askedSeconds of [Number.MAX_VALUE / 1000, 1e20]) {
    const out = await showWith(null, { reason: "too-long", askedSeconds });
    expect(out).toMatch(/HTTP 503, asked to wait over a year \(Retry-After\), ignored: over 24h\s/);
  }
});
