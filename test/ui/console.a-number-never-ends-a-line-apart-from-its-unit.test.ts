/**
 * A number and its unit are one thing to read: "25 h", "850 ms", "2 h 35 min", "3 records". On a
 * phone a line could end between them ("Oldest dead letter 25" / "h", a retry "after 2 h" / "35
 * min"), as they were apart by ordinary spaces; only relative times were joined by no-break
 * spaces. Every number the dashboard writes with a unit now is, and so is each number with a unit
 * in hookline's own words it shows (an alert's summary, the retry schedule's description). Long
 * sentences around them still break where they may.
 */
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { signIn, useDashboard } from "../support/browser.js";
import { anEndpoint, post, type TestEndpoint } from "../support/dlq.js";
import { FakeClock } from "../support/fake-clock.js";
import { deliveryOf } from "../support/hookline.js";

const HOUR = 3_600_000;

/**
 * Each place in the page's main content where a line may end between a number and its unit, or
 * inside a compound such as "2 h 35 min": an ordinary space there. As `…text…` around it.
 */
async function breakableUnits(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const unit = "ms|s|min|h|d|%|records?|attempts?|seconds?|times|points?|endpoints|secrets|per second";
    const apart = new RegExp("\\\\d (?:" + unit + ")(?![\\\\p{L}\\\\p{N}_])|\\\\d[ \\u00a0](?:d|h|min) \\\\d", "gu");
    const out = [];
    const main = document.querySelector("main");
    const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const text = n.textContent;
      for (const m of text.matchAll(apart)) {
        out.push(text.slice(Math.max(0, m.index - 20), m.index + m[0].length + 10));
      }
    }
    return out;
  })()`);
}

describe("the console at 320 px: numbers and their units", () => {
  const clock = new FakeClock(Date.now());
  // 404 is not retried: each message is dead-lettered at its first attempt.
  const ui = useDashboard({
    hookline: { overrides: { clock } },
    receiver: () => ({ status: 404 }),
  });
  let ep: TestEndpoint;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    // hookline's default retry schedule: waits of hours and minutes, offsets such as "2 h 35 min".
    ep = await anEndpoint(h, rx.url("/gone"), {});
    for (let i = 0; i < 3; i++) {
      await h.waitFor(deliveryOf(await post(h, ep.appId, { i }), "dead"));
    }
    // A dead letter a day old fires its alert: its value and summary in hours.
    clock.advance(25 * HOUR);
    await h.hookline.observability.evaluator.tick();
    await signIn(page, h.url, h.token);
    await page.setViewportSize({ width: 320, height: 844 });
  });

  it("keeps them together on the system page's tiles", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/ui/#/system`);
    await page.locator(`dt:text-is("Dead letters open") + dd`).getByText("3").waitFor();
    expect(await breakableUnits(page)).toEqual([]);
  });

  it("keeps them together in the alerts' values and summaries", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/ui/#/alerts`);
    await page
      .getByRole("table", { name: "Firing" })
      .getByText(/dead-letter record/)
      .waitFor();
    expect(await breakableUnits(page)).toEqual([]);
  });

  it("keeps them together on an endpoint's page: its retry schedule, attempts and counts", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/ui/#/app/${ep.appId}/endpoint/${ep.endpointId}`);
    const schedule = page.getByRole("table", { name: "Retries after a failed attempt" });
    await schedule
      .getByText(/^\d+\sh\s\d+\smin$/)
      .first()
      .waitFor();
    await page.getByRole("table", { name: "Recent attempts" }).getByText(/ms$/).first().waitFor();
    expect(await breakableUnits(page)).toEqual([]);
  });
});
