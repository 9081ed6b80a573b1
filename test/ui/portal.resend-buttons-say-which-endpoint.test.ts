/**
 * A message sent to several endpoints has a resend button per endpoint; each is named after its
 * endpoint, so someone moving through the page's buttons with a screen reader (or its list of
 * buttons) knows which one resends where. All were named "Resend to this endpoint".
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";
import { deliveryOf } from "../support/hookline.js";

describe("customer portal: resend buttons of a message", () => {
  const ui = useDashboard();
  let appId: string;
  let msgId: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    const eps = [];
    for (const path of ["/a", "/b"]) {
      eps.push((await h.svix.endpoint.create(appId, { url: rx.url(path) })).id);
    }
    msgId = (await h.svix.message.create(appId, { eventType: "order.paid", payload: {} })).id;
    for (const ep of eps) await h.waitFor(deliveryOf(msgId, "succeeded", ep));
    await openPortal(page, h, appId);
  });

  it("names each button after its endpoint, and resends only there", async () => {
    const { h, rx, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/message/${msgId}`);
    const resendB = page.getByRole("button", {
      name: `Resend to this endpoint, ${rx.url("/b")}`,
      exact: true,
    });
    await resendB.click({ timeout: 10_000 });
    const cardB = page.getByRole("article").filter({ hasText: rx.url("/b") });
    await cardB.getByRole("listitem").nth(1).waitFor({ timeout: 10_000 });
    expect(rx.on("/b")).toHaveLength(2);
    expect(rx.on("/a")).toHaveLength(1);
  });
});
