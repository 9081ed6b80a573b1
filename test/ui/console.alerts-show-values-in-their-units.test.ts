/**
 * The alerts page says an alert's value and threshold in the rule's own units (an age as a
 * duration, a rate as a percentage), not as the raw number the API carries: `dlq_oldest_age` read
 * "90000 (threshold 86400)", leaving the operator to guess that these were seconds.
 */
import { describe, expect, it } from "vitest";
import { anEndpoint, post } from "../support/dlq.js";
import { FakeClock } from "../support/fake-clock.js";
import { deliveryOf } from "../support/hookline.js";
import { signIn, useDashboard } from "../support/browser.js";

const HOUR = 3_600_000;

describe("operator console: alerts", () => {
  const clock = new FakeClock(Date.now());
  const ui = useDashboard({
    hookline: { overrides: { clock } },
    receiver: () => ({ status: 404 }),
  });

  it("shows an old dead letter's age and the threshold as durations", async () => {
    const { h, rx, page } = ui;
    const ep = await anEndpoint(h, rx.url("/gone"));
    const msg = await post(h, ep.appId, {});
    await h.waitFor(deliveryOf(msg, "dead"));
    clock.advance(25 * HOUR);
    await h.hookline.observability.evaluator.tick();

    await signIn(page, h.url, h.token);
    await page.getByRole("navigation").getByRole("link", { name: "Alerts" }).click();
    const firing = page.getByRole("table", { name: "Firing" });
    const row = firing.getByRole("row").filter({ hasText: "dead-letter record" });
    await row.waitFor();
    expect(await row.getByRole("cell").nth(2).innerText()).toBe("25\u00a0h (threshold 24\u00a0h)");
  });
});
