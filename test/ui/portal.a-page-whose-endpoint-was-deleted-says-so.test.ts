/**
 * An endpoint's page, open while the endpoint is deleted elsewhere (another tab, or the platform
 * through the API), says the endpoint is not there any more. It went on showing the endpoint with
 * every action, and toasted "Live update failed: endpoint … not found" at every update, read out
 * by screen readers every two seconds, until the customer left the page.
 */
import { describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: an endpoint deleted while its page is open", () => {
  const ui = useDashboard();

  it("says it is not found, and stops asking for it", async () => {
    const { h, rx, page } = ui;
    const app = await h.svix.application.create({ name: "Acme" });
    const ep = await h.svix.endpoint.create(app.id, { url: rx.url("/hook") });
    await openPortal(page, h, app.id);
    await page.goto(`${h.url}/portal/#/app/${app.id}/endpoint/${ep.id}`);
    await page.getByRole("heading", { level: 1, name: rx.url("/hook") }).waitFor();

    await h.svix.endpoint.delete(app.id, ep.id);
    await page
      .getByRole("heading", { name: "Could not load this page" })
      .waitFor({ timeout: 15_000 });
    expect(await page.locator("main").innerText()).toContain(`endpoint ${ep.id} not found`);
    expect(await page.getByRole("button", { name: "Send test event" }).count()).toBe(0);

    // Said once: no more updates ask for what is not there.
    const reads: string[] = [];
    page.on("request", (r) => reads.push(r.url()));
    await page.waitForTimeout(4_500);
    expect(reads).toEqual([]);
  });
});
