/**
 * A customer searches the message log, opens a message it found, and goes back with the browser:
 * the log still shows that search. The search lived only in the page, so going back showed every
 * message again with the fields emptied, and the customer had to search again after each message.
 */
import { describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: going back from a message to a searched log", () => {
  const ui = useDashboard();

  it("shows the search that found it", async () => {
    const { h, page } = ui;
    const app = await h.svix.application.create({ name: "Acme" });
    const wanted = await h.svix.message.create(app.id, { eventType: "user.created", payload: {} });
    for (let i = 0; i < 3; i++) {
      await h.svix.message.create(app.id, { eventType: "order.paid", payload: { i } });
    }
    await openPortal(page, h, app.id);
    await page.getByRole("navigation").getByRole("link", { name: "Messages" }).click();
    const rows = page.getByRole("table", { name: "Newest messages first" }).locator("tbody tr");
    await rows.nth(3).waitFor();

    await page.getByLabel("Event types").fill("user.created");
    await page.getByRole("button", { name: "Search" }).click();
    await rows.nth(1).waitFor({ state: "detached" });
    await page.getByRole("link", { name: wanted.id }).click();
    await page.getByRole("heading", { name: `user.created ${wanted.id}` }).waitFor();

    await page.goBack();
    await page.getByRole("heading", { name: "Messages of Acme" }).waitFor();
    await rows.first().waitFor();
    expect(await page.getByLabel("Event types").inputValue()).toBe("user.created");
    // Two updates later, still only what was searched.
    await page.waitForTimeout(4_500);
    expect(await rows.allInnerTexts()).toEqual([expect.stringContaining(wanted.id)]);

    // Coming to the log by the navigation is a new visit: every message, fields empty.
    await page.getByRole("navigation").getByRole("link", { name: "Endpoints" }).click();
    await page.getByRole("heading", { name: "Endpoints of Acme" }).waitFor();
    await page.getByRole("navigation").getByRole("link", { name: "Messages" }).click();
    await rows.nth(3).waitFor();
    expect(await page.getByLabel("Event types").inputValue()).toBe("");
  });
});
