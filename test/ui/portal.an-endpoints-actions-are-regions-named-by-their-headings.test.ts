/**
 * A screen reader lists a page's regions by name, to jump to one. The endpoint page's actions were
 * one region named after its first heading, "Send a test event", which held the signing secret and
 * Delete endpoint too. Each heading now names its own region, and the edit form is named "Edit".
 */
import { describe, expect, it } from "vitest";
import { openPortal, screenshot, useDashboard } from "../support/browser.js";

describe("customer portal: an endpoint's actions as regions", () => {
  const ui = useDashboard();

  it("names each by its heading, holding its own actions only", async () => {
    const { h, rx, page } = ui;
    const appId = (await h.svix.application.create({ name: "Acme" })).id;
    const epId = (await h.svix.endpoint.create(appId, { url: rx.url("/hook") })).id;
    await openPortal(page, h, appId);
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${epId}`);
    const region = (name: string) => page.getByRole("region", { name, exact: true });
    await region("Send a test event").waitFor();

    const buttons = async (name: string) =>
      (await region(name).getByRole("button").allInnerTexts()).join(", ");
    expect(await buttons("Send a test event")).toBe("Send test event");
    expect(await buttons("Signing secret")).toBe("Reveal secret, Rotate secret");
    expect(await buttons("Availability")).toBe("Disable, Delete endpoint");
    await page.getByRole("form", { name: "Edit" }).getByLabel("URL").waitFor();
    await screenshot(page, "endpoint-actions-regions");
  });
});
