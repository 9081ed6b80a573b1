/**
 * The test event's type is filled from the endpoint's first event type. It was filled once, when
 * the page opened: after the customer changed the endpoint's event types, a test was refused with
 * "the endpoint does not take this event type". It now follows the event types until the
 * customer types a type of their own, which it keeps.
 */
import { describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: the test event's type", () => {
  const ui = useDashboard();

  it("follows the endpoint's edited event types, and keeps one typed by hand", async () => {
    const { h, rx, page } = ui;
    const app = await h.svix.application.create({ name: "Acme" });
    const ep = await h.svix.endpoint.create(app.id, {
      url: rx.url("/hook"),
      filterTypes: ["user.created"],
    });
    await openPortal(page, h, app.id);
    await page.goto(`${h.url}/portal/#/app/${app.id}/endpoint/${ep.id}`);
    const testType = page
      .getByRole("region", { name: "Send a test event" })
      .getByLabel("Event type");
    await expect.poll(() => testType.inputValue()).toBe("user.created");

    const edit = page.locator("form").filter({ hasText: "Save changes" });
    await edit.getByLabel("Event types").fill("order.paid, order.refunded");
    await edit.getByRole("button", { name: "Save changes" }).click();
    await expect.poll(() => testType.inputValue(), { timeout: 15_000 }).toBe("order.paid");
    await page.getByRole("button", { name: "Send test event" }).click();
    await page.getByText(/^Test event msg_\w+ queued$/).waitFor({ timeout: 15_000 });

    // Typed by hand, it stays through the next change.
    await testType.fill("order.refunded");
    await h.svix.endpoint.patch(app.id, ep.id, { filterTypes: ["invoice.paid", "order.refunded"] });
    await expect
      .poll(() => edit.getByLabel("Event types").inputValue(), { timeout: 15_000 })
      .toBe("invoice.paid, order.refunded");
    expect(await testType.inputValue()).toBe("order.refunded");
  });
});
