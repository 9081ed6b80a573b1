/**
 * "Why did my endpoint never get this message?": the endpoint takes only messages on its channels,
 * and the message was sent on another one (or on none). The endpoint's page showed its event types
 * and not its channels, and a test event was refused with "the endpoint takes only messages on
 * its channels" without the page saying which: the customer could neither see the filter nor
 * change it. The page now shows the channels, and the Edit form changes them.
 */
import { describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";
import { deliveryOf } from "../support/hookline.js";

describe("customer portal: an endpoint's channels", () => {
  const ui = useDashboard();

  it("are shown on its page and changed with its Edit form", async () => {
    const { h, rx, page } = ui;
    const app = await h.svix.application.create({ name: "Acme" });
    const ep = await h.svix.endpoint.create(app.id, { url: rx.url("/eu"), channels: ["eu"] });
    const missed = await h.svix.message.create(app.id, {
      eventType: "order.paid",
      channels: ["us"],
      payload: {},
    });
    await openPortal(page, h, app.id);
    await page.goto(`${h.url}/portal/#/app/${app.id}/endpoint/${ep.id}`);
    const state = page.getByRole("region", { name: "Endpoint state" });
    const channels = state.locator("dt", { hasText: /^Channels$/ }).locator("+ dd");
    await channels.waitFor({ timeout: 15_000 });
    expect(await channels.innerText()).toBe("eu (only messages sent on one of these)");

    const edit = page.locator("form").filter({ hasText: "Save changes" });
    expect(await edit.getByLabel("Channels").inputValue()).toBe("eu");
    // A channel the API refuses is named as typed, not by its place in the list.
    await edit.getByLabel("Channels").fill("eu, us/west");
    await edit.getByRole("button", { name: "Save changes" }).click();
    await page.getByText(/channel "us\/west"/).waitFor({ timeout: 15_000 });

    await edit.getByLabel("Channels").fill("eu, us");
    await edit.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("Endpoint saved").waitFor({ timeout: 15_000 });
    expect((await h.svix.endpoint.get(app.id, ep.id)).channels).toEqual(["eu", "us"]);
    await expect
      .poll(() => channels.innerText(), { timeout: 15_000 })
      .toBe("eu, us (only messages sent on one of these)");

    // From now on a message on "us" reaches it; emptied, the field takes every message.
    const next = await h.svix.message.create(app.id, {
      eventType: "order.paid",
      channels: ["us"],
      payload: {},
    });
    await h.waitFor(deliveryOf(next.id, "succeeded", ep.id));
    expect(rx.requests.map((r) => r.headers["webhook-id"])).not.toContain(missed.id);
    await edit.getByLabel("Channels").fill("");
    await edit.getByRole("button", { name: "Save changes" }).click();
    await expect.poll(() => channels.innerText(), { timeout: 15_000 }).toBe("all");
    expect((await h.svix.endpoint.get(app.id, ep.id)).channels ?? null).toBeNull();
  });
});
