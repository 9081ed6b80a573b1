/**
 * A relative time ("in 1 h", "5 min ago") is one thing to read: on a phone, a line could end
 * between its number and its unit ("next attempt in 1" / "h (…)"), as its words were apart by
 * ordinary spaces. They are apart by no-break spaces now, so it stays on one line at any width it
 * fits in; copied, it still pastes with ordinary spaces
 * (dashboard.copied-rows-and-times-read-as-text).
 */
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";
import { BILLING_FAILS, heldForTheProbe } from "../support/circuit.js";

/**
 * The relative times drawn on more than one line at each page width from `from` down to `to`
 * (CSS px): their text, with the width. Every width is tried, as a line ends where it ends.
 */
async function brokenAcrossLines(page: Page, from: number, to: number): Promise<string[]> {
  const broken: string[] = [];
  for (let width = from; width >= to; width--) {
    await page.setViewportSize({ width, height: 844 });
    const here = await page.evaluate<string[]>(`(() => {
      const out = [];
      for (const said of document.querySelectorAll("time[data-relative] > :first-child")) {
        const range = document.createRange();
        range.selectNodeContents(said);
        const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (tops.size > 1) out.push(said.textContent);
      }
      return out;
    })()`);
    broken.push(...here.map((text) => `${width}px: ${JSON.stringify(text)}`));
  }
  return broken;
}

describe("the dashboard: a relative time at phone widths", () => {
  // Two failures in a row open the circuit, whose probe is an hour off: a third message waits.
  const ui = useDashboard(BILLING_FAILS);
  let appId: string;
  let held: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    ({ held } = await heldForTheProbe(h, rx, appId));
    await openPortal(page, h, appId);
  });

  it("keeps a delivery's next attempt on one line", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/message/${held}`);
    await page.getByText(/waits for the circuit's probe/).waitFor({ timeout: 15_000 });
    try {
      expect(await brokenAcrossLines(page, 480, 320)).toEqual([]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    // Read as words all the same: "in 1 h", its spaces no-break ones.
    const said = page.locator("time[data-relative] > :first-child").first();
    expect(await said.textContent()).toMatch(/^in\u00a0(59\u00a0min|1\u00a0h)$/);
  });
});
