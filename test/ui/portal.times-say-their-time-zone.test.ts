/**
 * A customer matching a delivery against their receiver's logs (often kept in UTC) reads the
 * portal's times in their browser's time zone: every exact time says which zone it is in, and the
 * time fields of the message search say which zone they are read in, so nothing is hours off
 * without a word.
 */
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";
import { deliveryOf } from "../support/hookline.js";

describe("customer portal: times and their time zone", () => {
  const ui = useDashboard();
  let appId: string;
  let msgId: string;
  let page: Page;

  beforeAll(async () => {
    const { h, rx, browser } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    const ep = await h.svix.endpoint.create(appId, { url: rx.url("/hook") });
    msgId = (await h.svix.message.create(appId, { eventType: "order.paid", payload: {} })).id;
    await h.waitFor(deliveryOf(msgId, "succeeded", ep.id));
    // Kolkata is 5 h 30 min ahead of UTC all year round.
    const context = await browser.newContext({ timezoneId: "Asia/Kolkata", locale: "en-US" });
    page = await context.newPage();
    await openPortal(page, h, appId);
  });

  it("says the zone of a message's time and of each attempt's", async () => {
    await page.goto(`${ui.h.url}/portal/#/app/${appId}/message/${msgId}`);
    const accepted = page.getByText(/^Accepted /);
    await accepted.waitFor();
    expect(await accepted.innerText()).toMatch(/GMT\+5:30$/);
    const attempt = page.getByRole("region", { name: "Deliveries" }).getByRole("listitem").first();
    await attempt.waitFor({ timeout: 10_000 });
    expect(await attempt.locator("strong").innerText()).toMatch(/GMT\+5:30$/);
  });

  it("says which zone the search's times are read in", async () => {
    await page.goto(`${ui.h.url}/portal/#/app/${appId}/messages`);
    for (const label of ["Sent after", "Sent before"]) {
      const input = page.getByLabel(label);
      await input.waitFor();
      expect(await input.getAttribute("aria-describedby")).not.toBeNull();
      const hint = page.locator(`#${await input.getAttribute("aria-describedby")}`);
      // ICU names the zone by its older name, Asia/Calcutta, in some versions.
      expect(await hint.innerText()).toMatch(
        /^Your time zone: Asia\/(?:Kolkata|Calcutta), GMT\+05:30$/,
      );
    }
  });
});
