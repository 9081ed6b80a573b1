/**
 * A test event (an endpoint page's "Send test event") goes to that endpoint only. Its message's
 * page listed the application's other endpoints as if filters had kept it from them: one that
 * takes every message said "it would take it now; when the message was accepted, it was disabled
 * or took other event types or channels", sending the customer to look for a change that never
 * happened. The page now says it is a test event, sent to one endpoint only.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";
import { deliveryOf } from "../support/hookline.js";

describe("customer portal: a test event's page", () => {
  const ui = useDashboard();
  let appId: string;
  let msgId: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    const tested = await h.svix.endpoint.create(appId, { url: rx.url("/tested") });
    await h.svix.endpoint.create(appId, { url: rx.url("/takes-all") });
    await h.svix.endpoint.create(appId, { url: rx.url("/europe"), channels: ["eu"] });
    const sent = await h.api<{ id: string }>(
      "POST",
      `/api/v1/app/${appId}/endpoint/${tested.id}/send-example`,
      { eventType: "order.paid" },
    );
    expect(sent.status).toBe(202);
    msgId = sent.body.id;
    await h.waitFor(deliveryOf(msgId, "succeeded", tested.id));
    await openPortal(page, h, appId);
  });

  it("says the event went to one endpoint only, not that filters kept it from the others", async () => {
    const { h, rx, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/message/${msgId}`);
    const missed = page.getByRole("article", { name: "Endpoints it did not go to" });
    await missed.getByRole("listitem").first().waitFor({ timeout: 15_000 });
    expect(await missed.locator("p").innerText()).toBe(
      "This is a test event, sent from one endpoint's page to that endpoint only. Sent from " +
        "here, it goes to the endpoint as it is now, whatever its event types and channels.",
    );
    const said = async (path: string) =>
      (
        await missed
          .getByRole("listitem")
          .filter({ has: page.getByRole("link", { name: rx.url(path), exact: true }) })
          .innerText()
      ).trim();
    expect(await said("/takes-all")).toBe(`${rx.url("/takes-all")} Send to this endpoint`);
    expect(await said("/europe")).toBe(`${rx.url("/europe")} Send to this endpoint`);
  });
});
