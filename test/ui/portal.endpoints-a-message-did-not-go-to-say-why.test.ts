/**
 * "Why did my endpoint never get this message?" A message's page lists the application's endpoints
 * it did not go to, under one sentence giving every possible reason (disabled, not taking its event
 * type or channels, not there yet) for all of them alike: the customer was left to work out which
 * applied, with the endpoint's channels shown nowhere. Each endpoint now says why, as it stands
 * now: the event types or channels it takes against the message's, or that it was added after.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";
import { deliveryOf } from "../support/hookline.js";

describe("customer portal: the endpoints a message did not go to", () => {
  const ui = useDashboard();
  let appId: string;
  let msgId: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    const add = (path: string, more: object = {}) =>
      h.svix.endpoint.create(appId, { url: rx.url(path), ...more });
    const taker = await add("/takes-it");
    await add("/invoices", { filterTypes: ["invoice.paid", "invoice.void"] });
    await add("/europe", { channels: ["eu"] });
    await add("/off", { disabled: true });
    const reenabled = await add("/reenabled", { disabled: true });
    const msg = await h.svix.message.create(appId, {
      eventType: "order.paid",
      channels: ["us"],
      payload: {},
    });
    msgId = msg.id;
    await h.waitFor(deliveryOf(msgId, "succeeded", taker.id));
    await h.svix.endpoint.patch(appId, reenabled.id, { disabled: false });
    await add("/later", { filterTypes: ["order.paid"] });
    await openPortal(page, h, appId);
  });

  it("says of each why, as it stands now", async () => {
    const { h, rx, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/message/${msgId}`);
    const missed = page.getByRole("article", { name: "Endpoints it did not go to" });
    await missed.getByRole("listitem").first().waitFor({ timeout: 15_000 });
    const said = async (path: string) =>
      (
        await missed
          .getByRole("listitem")
          .filter({ has: page.getByRole("link", { name: rx.url(path), exact: true }) })
          .innerText()
      ).trim();
    expect(await said("/invoices")).toBe(
      `${rx.url("/invoices")}: it takes only invoice.paid or invoice.void, not order.paid. ` +
        "Send to this endpoint",
    );
    expect(await said("/europe")).toBe(
      `${rx.url("/europe")}: it takes only messages sent on eu, and this one was sent on us. ` +
        "Send to this endpoint",
    );
    expect(await said("/later")).toBe(
      `${rx.url("/later")}: it was added after the message was accepted. Send to this endpoint`,
    );
    expect(await said("/reenabled")).toBe(
      `${rx.url("/reenabled")}: it would take it now; when the message was accepted, it was ` +
        "disabled or took other event types or channels. Send to this endpoint",
    );
    // Disabled now, its badge says why nothing goes there.
    expect(await said("/off")).toBe(`${rx.url("/off")} Endpoint disabled`);
    expect(await missed.getByRole("listitem").count()).toBe(5);
  });
});
