/**
 * On a message's page, the delivery to a disabled endpoint says the endpoint is disabled and offers
 * no resend until it is enabled. The card showed only `fail` and a "Resend to this endpoint" button
 * that answered "Resend queued": hookline sends a disabled endpoint nothing, so each click added a
 * dead letter ("endpoint disabled") and no attempt, and the customer was not told why.
 */
import { describe, expect, it } from "vitest";
import { deliveryOf } from "../support/hookline.js";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: a message sent to an endpoint that was disabled", () => {
  const ui = useDashboard({ receiver: () => ({ status: 410, body: "gone" }) });

  it("says the endpoint is disabled and offers the resend once it is enabled", async () => {
    const { h, rx, page } = ui;
    const app = await h.svix.application.create({ name: "Acme" });
    const ep = await h.svix.endpoint.create(app.id, { url: rx.url("/gone") });
    const msg = await h.svix.message.create(app.id, { eventType: "order.paid", payload: {} });
    await h.waitFor(deliveryOf(msg.id, "dead", ep.id), 10_000);

    await openPortal(page, h, app.id);
    await page.goto(`${h.url}/portal/#/app/${app.id}/message/${msg.id}`);
    const card = page.getByRole("article").filter({ hasText: rx.url("/gone") });
    await card.getByRole("listitem").filter({ hasText: "HTTP 410" }).waitFor({ timeout: 10_000 });
    await card.getByText(/endpoint disabled/i).waitFor({ timeout: 15_000 });
    expect(await card.innerText()).toContain("the receiver answered 410 Gone");
    const resend = card.getByRole("button", { name: "Resend to this endpoint" });
    expect(await resend.count()).toBe(0);

    // Enabled again (on its page, or through the API), the message can be resent to it.
    await h.svix.endpoint.patch(app.id, ep.id, { disabled: false });
    await resend.waitFor({ timeout: 15_000 });
    expect(await card.getByText(/endpoint disabled/i).count()).toBe(0);
  });
});
