/**
 * A customer editing an endpoint on its page saves what they changed, and nothing else: the Edit
 * form kept the values the page was opened with and sent them all, so a URL or event types changed
 * meanwhile (in another tab, or through the API) were put back by a save of the description, and
 * the endpoint silently went back to an old address or to receiving every event type.
 */
import { describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: editing an endpoint changed elsewhere", () => {
  const ui = useDashboard();

  it("keeps what changed meanwhile and saves the customer's change", async () => {
    const { h, rx, page } = ui;
    const app = await h.svix.application.create({ name: "Acme" });
    const ep = await h.svix.endpoint.create(app.id, {
      url: rx.url("/old"),
      filterTypes: ["order.paid"],
    });
    await openPortal(page, h, app.id);
    await page.goto(`${h.url}/portal/#/app/${app.id}/endpoint/${ep.id}`);
    await page.getByRole("heading", { level: 1, name: rx.url("/old") }).waitFor();
    const edit = page.locator("form").filter({ hasText: "Save changes" });

    // Changed elsewhere: the fields nobody touched here follow at the next update.
    await h.svix.endpoint.patch(app.id, ep.id, {
      url: rx.url("/new"),
      filterTypes: ["order.paid", "order.refunded"],
    });
    await page
      .getByRole("heading", { level: 1, name: rx.url("/new") })
      .waitFor({ timeout: 15_000 });
    await expect.poll(() => edit.getByLabel("URL").inputValue()).toBe(rx.url("/new"));
    await expect
      .poll(() => edit.getByLabel("Event types").inputValue())
      .toBe("order.paid, order.refunded");

    // A field being edited keeps what the customer typed while the page updates.
    await edit.getByLabel("Description").fill("orders to the warehouse");
    await h.svix.endpoint.patch(app.id, ep.id, { url: rx.url("/newer") });
    await page
      .getByRole("heading", { level: 1, name: rx.url("/newer") })
      .waitFor({ timeout: 15_000 });
    expect(await edit.getByLabel("Description").inputValue()).toBe("orders to the warehouse");

    // Only the description is saved; what changed elsewhere stays.
    await h.svix.endpoint.patch(app.id, ep.id, { filterTypes: ["order.shipped"] });
    await edit.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("Endpoint saved").waitFor({ timeout: 15_000 });
    const saved = await h.svix.endpoint.get(app.id, ep.id);
    expect(saved.description).toBe("orders to the warehouse");
    expect(saved.url).toBe(rx.url("/newer"));
    expect(saved.filterTypes).toEqual(["order.shipped"]);
  });
});
