/**
 * Jumping to a message by an id the API refuses (longer than an id can be) says why, as an id
 * that is not found does. The refusal was not a 404, so it went unhandled: the page did nothing.
 */
import { describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: jumping to a message by id", () => {
  const ui = useDashboard();

  it("says why an id is refused, and still finds one by its event id", async () => {
    const { h, page } = ui;
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const app = await h.svix.application.create({ name: "Acme" });
    const msg = await h.svix.message.create(app.id, {
      eventType: "order.paid",
      eventId: "evt-42",
      payload: {},
    });
    await openPortal(page, h, app.id);
    await page.getByRole("navigation").getByRole("link", { name: "Messages" }).click();
    await page.getByRole("table", { name: "Newest messages first" }).waitFor();

    await page.getByLabel("Message or event id").fill("x".repeat(300));
    await page.getByRole("button", { name: "Search" }).click();
    await page
      .locator("#toast")
      .getByText("must be 1 to 256 characters")
      .waitFor({ timeout: 15_000 });
    expect(errors).toEqual([]);

    await page.getByLabel("Message or event id").fill("evt-42");
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByRole("heading", { name: `order.paid ${msg.id}` }).waitFor({ timeout: 15_000 });
  });
});
