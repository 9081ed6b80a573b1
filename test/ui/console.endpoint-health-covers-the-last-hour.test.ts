/**
 * The endpoints page's health columns ("last hour") count the attempts of the last 60 minutes,
 * not those since the start of the previous whole hour.
 */
import { describe, expect, it } from "vitest";
import { signIn, useDashboard } from "../support/browser.js";
import { anEndpoint, post } from "../support/dlq.js";
import { FakeClock } from "../support/fake-clock.js";
import { deliveryOf } from "../support/hookline.js";

describe("operator console: endpoint health", () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1, 10, 0));
  const ui = useDashboard({
    hookline: { overrides: { clock } },
    receiver: () => ({ status: 200 }),
  });

  it("counts only the attempts of the last 60 minutes", async () => {
    const { h, rx, page } = ui;
    const ep = await anEndpoint(h, rx.url("/hooks"));
    // Attempts at 10:05, 10:49 and 11:20; the page is read at 11:50, so only the last one is
    // within the hour (the first two are within the whole hour that began at 10:00).
    for (const at of [5, 49, 80]) {
      clock.advance(Date.UTC(2026, 0, 1, 10, at) - clock.now());
      const msg = await post(h, ep.appId, { at });
      await h.waitFor(deliveryOf(msg, "succeeded"));
    }
    clock.advance(Date.UTC(2026, 0, 1, 11, 50) - clock.now());
    expect(rx.on("/hooks")).toHaveLength(3);

    await signIn(page, h.url, h.token);
    await page.goto(`${h.url}/ui/#/app/${ep.appId}/endpoints`);
    const row = page
      .getByRole("table", { name: /Endpoints and their health/ })
      .getByRole("row")
      .filter({ hasText: rx.url("/hooks") });
    await row.waitFor();
    expect(await row.innerText()).toContain("100% of 1");
  });
});
