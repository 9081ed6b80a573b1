/**
 * A message search in the page's address that the API refuses (a link edited by hand, an event
 * type with a character event types cannot have) is said under the search form, naming the type,
 * and every message is listed. Taken as the list's filter, it failed the whole page ("Could not
 * load this page"), with no form left to change the search.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: a refused search in the address", () => {
  const ui = useDashboard();
  let appId: string;
  let msgId: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    await h.svix.endpoint.create(appId, { url: rx.url("/hook") });
    msgId = (await h.svix.message.create(appId, { eventType: "order.paid", payload: {} })).id;
    await openPortal(page, h, appId);
  });

  it("says the search was not made and lists every message", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/messages?event_types=order%24paid`);
    await expect
      .poll(() => page.getByRole("search").getByRole("alert").textContent())
      .toMatch(/^Not searched: .*order\$paid/);
    expect(await page.getByLabel("Event types").inputValue()).toBe("order$paid");
    const table = page.getByRole("table", { name: "Newest messages first" });
    expect(await table.getByText(msgId).count()).toBe(1);
  });
});
