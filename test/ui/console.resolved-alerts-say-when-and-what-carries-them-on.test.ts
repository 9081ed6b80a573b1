/**
 * A resolved alert that another alert carries on (two workers met on one condition) says when it
 * was resolved and which alert carries it on: the "Resolved" cell read "[object
 * HTMLTimeElement], carried on as alrt_…", the relative time written into the text as an object.
 */
import { describe, expect, it } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { signIn, useDashboard } from "../support/browser.js";

const MINUTE = 60_000;

describe("operator console: a superseded alert", () => {
  const clock = new FakeClock(Date.now());
  const ui = useDashboard({ hookline: { overrides: { clock } } });

  it("says when it was resolved and which alert carries it on", async () => {
    const { h, page } = ui;
    const alert = {
      rule: "queue_lag",
      severity: "warning" as const,
      endpointId: null,
      value: 120,
      threshold: 60,
    };
    await h.hookline.store.saveAlerts({
      holder: "test",
      alerts: [
        {
          ...alert,
          id: "alrt_kept",
          summary: "queue lag (kept)",
          since: clock.now() - 10 * MINUTE,
          resolvedAt: null,
          supersededBy: null,
        },
        {
          ...alert,
          id: "alrt_dropped",
          summary: "queue lag (dropped)",
          since: clock.now() - 5 * MINUTE,
          resolvedAt: clock.now() - 3 * MINUTE,
          supersededBy: "alrt_kept",
        },
      ],
      forgetResolvedBefore: 0,
    });

    await signIn(page, h.url, h.token);
    await page.getByRole("navigation").getByRole("link", { name: "Alerts" }).click();
    const resolved = page.getByRole("table", { name: "Recently resolved" });
    const row = resolved.getByRole("row").filter({ hasText: "queue lag (dropped)" });
    await row.waitFor();
    const cell = row.getByRole("cell").nth(4);
    // The resolution time is a live relative time like the others, with its exact time, which a
    // screen reader reads with it.
    expect(await cell.locator("time").count()).toBe(1);
    const exact = await page.evaluate<string>(
      `new Date(${clock.now() - 3 * MINUTE}).toLocaleString(undefined, { timeZoneName: "short" })`,
    );
    expect((await cell.innerText()).replace(/\s/g, " ")).toBe(
      `3 min ago (${exact}), carried on as alrt_kept`,
    );
  });
});
