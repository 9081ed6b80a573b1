/**
 * The message log's search and the attempts an endpoint's page shows are in the page's address:
 * reloaded, bookmarked, or opened from a link a colleague pasted, the page shows the same search,
 * its fields filled. They were kept only in the history entry, so the address showed every
 * message and every attempt, and one with a query was "Not found".
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";
import { deliveryOf } from "../support/hookline.js";

describe("customer portal: a search kept in the address", () => {
  // The receiver refuses (400: permanent, dead at once) a payload that asks for it.
  const ui = useDashboard({
    receiver: (req) =>
      JSON.parse(req.body.toString()).refuse ? { status: 400, body: "no" } : { status: 200 },
  });
  let appId: string;
  let epId: string;
  let paid: string;
  let created: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    epId = (await h.svix.endpoint.create(appId, { url: rx.url("/hook") })).id;
    const send = async (eventType: string, payload: object) =>
      (await h.svix.message.create(appId, { eventType, payload })).id;
    paid = await send("order.paid", { refuse: true });
    created = await send("order.created", {});
    await h.waitFor(deliveryOf(paid, "dead", epId));
    await h.waitFor(deliveryOf(created, "succeeded", epId));
    await openPortal(page, h, appId);
  });

  const messageLinks = () =>
    ui.page.getByRole("table", { name: "Newest messages first" }).locator("tbody a");

  it("keeps the message search across a reload and opens a link with one", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/messages`);
    // The endpoints page being left has an "Event types" field too (its form to add one).
    await page.getByRole("heading", { name: "Messages of Acme" }).waitFor();
    await page.getByLabel("Event types").fill("order.paid");
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL(/\?event_types=order\.paid$/);
    await page.reload();
    await messageLinks().first().waitFor();
    expect(await messageLinks().allInnerTexts()).toEqual([paid]);
    expect(await page.getByLabel("Event types").inputValue()).toBe("order.paid");

    await page.goto(`${h.url}/portal/#/app/${appId}/messages?event_types=order.created`);
    await page.getByRole("link", { name: created }).waitFor();
    expect(await messageLinks().allInnerTexts()).toEqual([created]);
    expect(await page.getByLabel("Event types").inputValue()).toBe("order.created");
  });

  it("keeps the failed attempts shown across a reload", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${epId}`);
    const rows = page.getByRole("table", { name: "Recent attempts" }).locator("tbody tr");
    await rows.nth(1).waitFor();
    await page.getByLabel("Show").selectOption({ label: "Failed attempts" });
    await page.waitForURL(/\?attempts=failed$/);
    await page.reload();
    await rows.first().getByRole("link", { name: paid }).waitFor();
    expect(await rows.count()).toBe(1);
    expect(await page.getByLabel("Show").inputValue()).toBe("&status=2");
  });
});
