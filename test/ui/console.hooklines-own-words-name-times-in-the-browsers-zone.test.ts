/**
 * The console shows every time in the browser's zone, saying which, but hookline's own words it
 * shows as they came, and they name times in UTC: a record replayed behind an open circuit
 * answered "queued behind its probe at 2026-12-06T23:10:18.147Z" beside times such as
 * "12/7/2026, 4:35:18 AM GMT+5:30", in the toast and in the record's history. Those times are now
 * shown as every other one.
 */
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { signIn, useDashboard } from "../support/browser.js";
import { anEndpoint, deadLetters, type RecordOut } from "../support/dlq.js";

const ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

describe("operator console: times in hookline's own words", () => {
  const ui = useDashboard({
    // The one failure opens the circuit, whose probe is half an hour off.
    hookline: { overrides: { breaker: { consecutiveFailures: 1, probeDelayMs: 30 * 60_000 } } },
    receiver: () => ({ status: 503, body: "maintenance" }),
  });
  let record: RecordOut;
  let page: Page;

  beforeAll(async () => {
    const { h, rx, browser } = ui;
    const ep = await anEndpoint(h, rx.url("/orders"));
    [record] = (await deadLetters(h, ep, 1)) as [RecordOut];
    // Kolkata is 5 h 30 min ahead of UTC all year round.
    const context = await browser.newContext({ timezoneId: "Asia/Kolkata", locale: "en-US" });
    page = await context.newPage();
    await signIn(page, h.url, h.token);
  });

  it("says when a replay queued behind the circuit goes, in the browser's zone", async () => {
    const { h } = ui;
    await page.goto(`${h.url}/ui/#/dlq/${record.id}`);
    await page.getByRole("button", { name: "Replay now" }).click();
    const toast = page.locator("#toast");
    await toast.getByText(/^Replay queued/).waitFor({ timeout: 15_000 });
    const said = await toast.innerText();
    expect(said).toMatch(/queued behind its probe at \d+\/\d+\/\d{4}, [\d:]+ [AP]M GMT\+5:30$/);
    expect(said).not.toMatch(ISO);

    const history = page.getByRole("table", { name: "History" });
    const requested = history.getByRole("row").filter({ hasText: "replay requested" });
    await requested.waitFor({ timeout: 15_000 });
    const result = await requested.getByRole("cell").nth(3).innerText();
    expect(result).toMatch(/queued behind the circuit's probe at .* GMT\+5:30$/);
    expect(result).not.toMatch(ISO);
  });
});
