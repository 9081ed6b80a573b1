/**
 * An event type the API refuses in the endpoint forms (adding one, or editing one) is named as the
 * customer typed it. The toast said "filterTypes.1: may contain only letters, …": the API's field
 * name and a count from zero, which the customer had to map back to what they typed.
 */
import { describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: an event type the endpoint forms cannot take", () => {
  const ui = useDashboard();

  it("is named as typed, when adding and when editing", async () => {
    const { h, rx, page } = ui;
    const app = await h.svix.application.create({ name: "Acme" });
    await openPortal(page, h, app.id);
    const toast = page.locator("#toast");

    const add = page.locator("form").filter({ hasText: "Add an endpoint" });
    await add.getByLabel("URL").fill(rx.url("/hook"));
    await add.getByLabel("Event types").fill("order.paid, order/refunded");
    await add.getByRole("button", { name: "Add endpoint" }).click();
    await toast.getByText(/"order\/refunded"/).waitFor({ timeout: 15_000 });
    expect(await toast.innerText()).not.toContain("filterTypes");

    const ep = await h.svix.endpoint.create(app.id, { url: rx.url("/hook") });
    await page.goto(`${h.url}/portal/#/app/${app.id}/endpoint/${ep.id}`);
    const edit = page.locator("form").filter({ hasText: "Save changes" });
    await edit.getByLabel("Event types").fill("order:shipped order.paid");
    await edit.getByRole("button", { name: "Save changes" }).click();
    await toast.getByText(/"order:shipped"/).waitFor({ timeout: 15_000 });
    expect(await toast.innerText()).not.toContain("filterTypes");
  });
});
