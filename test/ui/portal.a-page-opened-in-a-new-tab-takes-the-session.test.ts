/**
 * A customer opens a portal page in a new tab (middle click, or "Open link in new tab"): the new
 * tab starts with empty sessionStorage, and said "This portal link has expired or is incomplete"
 * while the link worked in the first tab. It now takes the session of a portal tab of the same
 * application still open, and with none open says what happened instead of blaming the link.
 */
import { describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: a page opened in a new tab", () => {
  const ui = useDashboard();

  it("takes the session of the portal tab still open", async () => {
    const { h, rx, page } = ui;
    const app = await h.svix.application.create({ name: "Acme" });
    await h.svix.endpoint.create(app.id, { url: rx.url("/hook") });
    await openPortal(page, h, app.id);

    const [tab] = await Promise.all([
      page.context().waitForEvent("page"),
      page.getByRole("link", { name: rx.url("/hook") }).click({ modifiers: ["Control"] }),
    ]);
    await tab.getByRole("heading", { name: rx.url("/hook") }).waitFor({ timeout: 10_000 });
    await tab.getByRole("button", { name: "Reveal secret" }).click();
    await tab.getByText(/^whsec_/).waitFor();
    // Both tabs go on working.
    await page.getByRole("navigation").getByRole("link", { name: "Messages" }).click();
    await page.getByRole("heading", { name: "Messages of Acme" }).waitFor();
    await tab.close();
  });

  it("says that the tab has no session when no portal tab is open", async () => {
    const { h, browser, page } = ui;
    const address = page.url();
    expect(address).toContain("#/app/");
    const alone = await browser.newPage();
    try {
      await alone.goto(address);
      await alone.getByRole("heading", { name: "This tab has no portal session" }).waitFor();
      expect(await alone.innerText("main")).toContain("Open the portal link you were given again");
      expect(await alone.title()).toBe("This tab has no portal session · hookline");
      // Opening the link there works as ever.
      const app = address.match(/#\/app\/([^/]+)\//)![1]!;
      const link = await h.svix.authentication.appPortalAccess(app, { expiry: 3600 });
      await alone.goto(link.url);
      await alone.getByRole("heading", { name: "Endpoints of Acme" }).waitFor();
    } finally {
      await alone.close();
    }
  });
});
