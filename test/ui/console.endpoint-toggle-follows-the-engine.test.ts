/**
 * The endpoint page's Enable/Disable button follows the endpoint as it is now, not as the page
 * first loaded it: when the engine disables the endpoint (its receiver answered 410 Gone) while
 * the page is open, the button offers to enable it, and doing so enables it.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, signIn } from "../support/browser.js";
import { anEndpoint, post } from "../support/dlq.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe("operator console: enabling and disabling an endpoint", () => {
  let h: TestHookline;
  let rx: Receiver;
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    h = await startHookline();
    rx = await Receiver.start(() => ({ status: 200 }));
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  });
  afterAll(async () => {
    await browser?.close();
    await rx?.close();
    await h?.stop();
  });

  it("offers Enable once the engine has disabled the endpoint", async () => {
    const ep = await anEndpoint(h, rx.url("/gone"));
    const path = `/api/v1/app/${ep.appId}/endpoint/${ep.endpointId}`;
    await signIn(page, h.url, h.token);
    await page.goto(`${h.url}/ui/#/app/${ep.appId}/endpoint/${ep.endpointId}`);
    const facts = page.getByRole("region", { name: "Endpoint state" });
    await facts.getByText("Enabled", { exact: true }).waitFor();
    await page.getByRole("button", { name: "Disable", exact: true }).waitFor();

    rx.behave(() => ({ status: 410 }));
    const msg = await post(h, ep.appId, { order: 1 });
    await h.waitFor(deliveryOf(msg, "dead"));
    expect((await h.api<{ disabled: boolean }>("GET", path)).body.disabled).toBe(true);

    // The next live update shows the new status, and the button with it.
    await facts.getByText(/^Disabled/).waitFor();
    const enable = page.getByRole("button", { name: "Enable", exact: true });
    await enable.waitFor({ timeout: 5_000 });
    expect(await page.getByRole("button", { name: "Disable", exact: true }).count()).toBe(0);

    await enable.click();
    await facts.getByText("Enabled", { exact: true }).waitFor();
    await page.getByRole("button", { name: "Disable", exact: true }).waitFor();
    expect((await h.api<{ disabled: boolean }>("GET", path)).body.disabled).toBe(false);
  });
});
