/**
 * "My endpoint never got event X": the endpoint did not take X's event type when X was sent, so
 * X went to no endpoint. Its page showed an empty "Deliveries" and no way to send it on, though
 * a resend reaches an endpoint a message never went to. It says so, lists the application's
 * endpoints the message did not go to, and sends it to one, the focus moving on to the endpoint's
 * resend button.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: a message an endpoint missed", () => {
  const ui = useDashboard();
  let appId: string;
  let epId: string;
  let msgId: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    epId = (
      await h.svix.endpoint.create(appId, { url: rx.url("/hook"), filterTypes: ["order.created"] })
    ).id;
    msgId = (await h.svix.message.create(appId, { eventType: "order.paid", payload: {} })).id;
    // The customer fixes the endpoint's event types afterwards.
    await h.svix.endpoint.patch(appId, epId, { filterTypes: null });
    await openPortal(page, h, appId);
  });

  it("says the message went nowhere and sends it to the endpoint it missed", async () => {
    const { h, rx, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/message/${msgId}`);
    const deliveries = page.getByRole("region", { name: "Deliveries" });
    await deliveries.getByText("hookline sent this message to no endpoint.").waitFor();
    const missed = deliveries.getByRole("article", { name: "Endpoints it did not go to" });
    await missed
      .getByRole("button", { name: `Send to this endpoint, ${rx.url("/hook")}`, exact: true })
      .click();
    const card = deliveries.getByRole("article").filter({
      has: page.getByRole("link", { name: rx.url("/hook"), exact: true }),
      hasText: "Resend to this endpoint",
    });
    await card.getByRole("listitem").first().waitFor({ timeout: 10_000 });
    expect(await card.getByRole("listitem").first().innerText()).toContain("HTTP 200");
    expect(rx.on("/hook")).toHaveLength(1);
    await missed.waitFor({ state: "detached" });
    // The keyboard's place is the endpoint's resend button, where the pressed one was.
    expect(
      await card
        .getByRole("button", { name: "Resend to this endpoint" })
        .evaluate((b) => b === b.ownerDocument.activeElement),
    ).toBe(true);
  });
});
