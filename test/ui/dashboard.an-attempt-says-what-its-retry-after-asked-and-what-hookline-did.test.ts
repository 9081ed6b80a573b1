/**
 * A receiver answering 503 with `Retry-After: 120` has its retry 2 min off, and one asking for
 * 6 h waits 4 h, hookline's cap. The message's page says so beside a next attempt still waiting,
 * but the attempt itself (its **Request and response**, on the message's page in the console and
 * the portal, and on a dead-letter record's page) said only `HTTP 503`: once the retry had gone,
 * or the delivery was given up, nothing shown said the endpoint had asked for a wait, nor what
 * hookline did with it. The attempt now says both, in the message page's words. One asking for no
 * wait (`Retry-After: 0`, or a date already past), whose retry hookline made due at once, said it
 * "asked for 0 s": it now says it asked for no wait. And the attempt's line in each list (a
 * message's timeline, an endpoint's recent attempts, a record's attempts) said nothing of it, so
 * someone scanning a list for why a retry came late had to unfold each attempt: it now ends with a
 * short mark ("· Retry-After 2 min"). One hookline ignored (a wait past 24 h, or neither a number
 * nor a date), after which the retry schedule set the next attempt seconds off, said nothing at
 * all: someone whose endpoint asked for 48 h saw a retry 30 s later with nothing saying why. The
 * attempt now says what was ignored and why, and its line is marked too.
 */
import type { Locator, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { axeViolations } from "../support/axe.js";
import { openPortal, signIn, useDashboard } from "../support/browser.js";
import { askingOnceThenRefusing, recordsAfterARetryAfter, type RecordOut } from "../support/dlq.js";

const ASKED =
  /Retry-After\s*The endpoint asked for 2\smin before the next attempt, and hookline set it that long after this answer, as asked\./;
const AT_ONCE =
  /Retry-After\s*The endpoint asked for no wait before the next attempt, so hookline made it due as soon as this answer came\./;
const CAPPED =
  /Retry-After\s*The endpoint asked for 6\sh; hookline waits at most 4\sh, so it set the next attempt 4\sh after this answer\./;

const TOO_LONG =
  /Retry-After\s*The endpoint asked for 48\sh before the next attempt; hookline ignores a wait over 24\sh, so the retry schedule set the next attempt\./;
const MALFORMED =
  /Retry-After\s*The endpoint's Retry-After was "after lunch", neither a number of seconds nor a date, so hookline ignored it and the retry schedule set the next attempt\./;

/** The mark an attempt's line ends with, for each receiver. */
const MARKS = [
  ["/asked", "· Retry-After 2\\smin"],
  ["/capped", "· Retry-After 6\\sh, capped at 4\\sh"],
  ["/at-once", "· Retry-After 0 \\(no wait\\)"],
  ["/past-a-day", "· Retry-After 48\\sh ignored \\(over 24\\sh\\)"],
  ["/malformed", "· Retry-After ignored \\(not a number or date\\)"],
] as const;

/** The first attempt's Request and response within `where`, unfolded. */
async function firstAttemptUnfolded(where: Locator): Promise<string> {
  const details = where.locator("details.attempt-details").first();
  await details.getByText("Request and response").click({ timeout: 15_000 });
  await details.getByText("Response body").waitFor();
  return details.innerText();
}

describe("an attempt whose answer's Retry-After set the next attempt's time", () => {
  const ui = useDashboard({
    receiver: askingOnceThenRefusing({
      "/capped": String(6 * 3600),
      "/at-once": "0",
      "/past-a-day": String(2 * 86_400),
      "/malformed": "after lunch",
    }),
  });
  let appId: string;
  let msgId: string;
  let records: Record<string, RecordOut>;

  beforeAll(async () => {
    const { h, rx } = ui;
    ({ appId, msgId, records } = await recordsAfterARetryAfter(
      h,
      (p) => rx.url(p),
      ["/asked", "/capped", "/past-a-day", "/malformed"],
      ["/at-once"],
    ));
  });

  /** The card of the delivery to `url` on the message's page. */
  const cardOf = (page: Page, url: string): Locator =>
    page
      .getByRole("region", { name: "Deliveries" })
      .getByRole("article")
      .filter({ has: page.getByRole("link", { name: url, exact: true }) });

  const expectOnTheMessagePage = async (page: Page, base: string) => {
    const { rx } = ui;
    await page.goto(`${base}/app/${appId}/message/${msgId}`);
    expect(await firstAttemptUnfolded(cardOf(page, rx.url("/asked")))).toMatch(ASKED);
    expect(await firstAttemptUnfolded(cardOf(page, rx.url("/capped")))).toMatch(CAPPED);
    const atOnce = await firstAttemptUnfolded(cardOf(page, rx.url("/at-once")));
    expect(atOnce).toMatch(AT_ONCE);
    // Nothing to bring forward: a resend is not named.
    expect(atOnce).not.toContain("resend");
    expect(await firstAttemptUnfolded(cardOf(page, rx.url("/past-a-day")))).toMatch(TOO_LONG);
    expect(await firstAttemptUnfolded(cardOf(page, rx.url("/malformed")))).toMatch(MALFORMED);
    // The retry after it, answered 400, had no Retry-After: its attempt says none.
    const retry = cardOf(page, rx.url("/asked")).getByRole("listitem").nth(1);
    expect(await firstAttemptUnfolded(retry)).not.toContain("Retry-After");
  };

  it("says so on the message's page in the portal", async () => {
    const { h, page } = ui;
    await openPortal(page, h, appId);
    await expectOnTheMessagePage(page, `${h.url}/portal/#`);
  });

  it("says so on the message's page and the dead-letter record's page in the console", async () => {
    const { h, page } = ui;
    await signIn(page, h.url, h.token);
    await expectOnTheMessagePage(page, `${h.url}/ui/#`);
    // And on each record's page, in the dead-letter queue.
    for (const [path, words] of [
      ["/asked", ASKED],
      ["/capped", CAPPED],
      ["/at-once", AT_ONCE],
      ["/past-a-day", TOO_LONG],
      ["/malformed", MALFORMED],
    ] as const) {
      await page.goto(`${h.url}/ui/#/dlq/${records[path]!.id}`);
      const attempts = page.getByRole("table", { name: "Every attempt, original and replays" });
      expect(await firstAttemptUnfolded(attempts.getByRole("row").nth(1))).toMatch(words);
    }
  });

  it("marks the attempt's line in each list of attempts, its retry's line not", async () => {
    const { h, browser, rx } = ui;
    // A page of its own, signed in whichever test ran before.
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page, h.url, h.token);
    await page.goto(`${h.url}/ui/#/app/${appId}/message/${msgId}`);
    for (const [path, mark] of MARKS) {
      const lines = cardOf(page, rx.url(path)).getByRole("listitem");
      await lines.nth(1).waitFor({ timeout: 15_000 });
      expect(await lines.first().innerText()).toMatch(new RegExp(`\\(retryable\\) ${mark}`));
      expect(await lines.nth(1).innerText()).not.toContain("Retry-After");
    }
    expect(await axeViolations(page)).toEqual([]);
    for (const [path, mark] of MARKS) {
      await page.goto(`${h.url}/ui/#/app/${appId}/endpoint/${records[path]!.endpointId}`);
      const rows = page.getByRole("table", { name: "Recent attempts" }).getByRole("row");
      const first = rows.filter({ hasText: "busy" });
      await first.waitFor({ timeout: 15_000 });
      expect(await first.innerText()).toMatch(new RegExp(`503 ${mark}`));
      expect(await rows.filter({ hasText: "no longer taken" }).innerText()).not.toContain(
        "Retry-After",
      );
      await page.goto(`${h.url}/ui/#/dlq/${records[path]!.id}`);
      const attempts = page
        .getByRole("table", { name: "Every attempt, original and replays" })
        .getByRole("row");
      await attempts.nth(2).waitFor({ timeout: 15_000 });
      expect(await attempts.nth(1).innerText()).toMatch(
        new RegExp(`HTTP 503 \\(retryable\\) ${mark}`),
      );
      expect(await attempts.nth(2).innerText()).not.toContain("Retry-After");
    }
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });
});
