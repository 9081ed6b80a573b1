/**
 * A search of the message log that finds nothing, and an endpoint's failed attempts when none
 * failed, say so. Both said "Nothing here yet.", as if the application had never sent a message
 * or the endpoint never been tried.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";
import { deliveryOf } from "../support/hookline.js";

describe("customer portal: a search that finds nothing", () => {
  const ui = useDashboard();
  let appId: string;
  let epId: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    epId = (await h.svix.endpoint.create(appId, { url: rx.url("/hook") })).id;
    const msg = await h.svix.message.create(appId, { eventType: "order.paid", payload: {} });
    await h.waitFor(deliveryOf(msg.id, "succeeded", epId));
    await openPortal(page, h, appId);
  });

  it("says no message matches the search, and that no attempt failed", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/messages?event_types=order.refunded`);
    const empty = page.getByRole("table", { name: "Newest messages first" }).locator("td.empty");
    await empty.waitFor();
    expect(await empty.innerText()).toBe("No message matches this search.");

    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${epId}?attempts=failed`);
    const none = page.getByRole("table", { name: "Recent attempts" }).locator("td.empty");
    await none.waitFor();
    expect(await none.innerText()).toBe("No failed attempts.");
  });
});
