/**
 * "Skip to content", the first stop of the keyboard, moves focus past the navigation to the page's
 * content and leaves the page where it is. Its `#main` was taken as a dashboard address (the routes
 * live in the fragment), so it replaced the page with "Not found".
 */
import { describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: the skip link", () => {
  const ui = useDashboard();

  it("moves focus to the content and keeps the page", async () => {
    const { h, rx, page } = ui;
    const app = await h.svix.application.create({ name: "Acme" });
    await h.svix.endpoint.create(app.id, { url: rx.url("/hook") });
    await openPortal(page, h, app.id);
    const address = page.url();

    await page.keyboard.press("Tab");
    expect(await page.evaluate("document.activeElement?.textContent")).toBe("Skip to content");
    await page.keyboard.press("Enter");
    await page.waitForFunction("document.activeElement?.id === 'main'");
    // A live update later, the page is still the endpoints page, at the same address.
    await page.waitForTimeout(2_500);
    expect(page.url()).toBe(address);
    await page.getByRole("heading", { name: "Endpoints of Acme" }).waitFor({ timeout: 5_000 });
    await page.getByRole("link", { name: rx.url("/hook") }).waitFor({ timeout: 5_000 });
    // The next Tab goes on from the content, not from the top of the page.
    await page.keyboard.press("Tab");
    expect(
      await page.evaluate("document.getElementById('main').contains(document.activeElement)"),
    ).toBe(true);
  });
});
