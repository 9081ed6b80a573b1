/**
 * The endpoint page's Enable/Disable button follows the endpoint as it is now, not as the page
 * first loaded it: when the engine disables the endpoint (its receiver answered 410 Gone) while
 * the page is open, the button offers to enable it, and doing so enables it.
 */
import { describe, expect, it } from "vitest";
import { signIn, useDashboard } from "../support/browser.js";
import { anEndpoint, post } from "../support/dlq.js";
import { deliveryOf } from "../support/hookline.js";

describe("operator console: enabling and disabling an endpoint", () => {
  const ui = useDashboard({ receiver: () => ({ status: 200 }) });

  it("offers Enable once the engine has disabled the endpoint", async () => {
    const { h, rx, page } = ui;
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
    await enable.waitFor({ timeout: 15_000 });
    expect(await page.getByRole("button", { name: "Disable", exact: true }).count()).toBe(0);

    await enable.click();
    await facts.getByText("Enabled", { exact: true }).waitFor();
    await page.getByRole("button", { name: "Disable", exact: true }).waitFor();
    expect((await h.api<{ disabled: boolean }>("GET", path)).body.disabled).toBe(false);
  });
});
