/**
 * Signing out of the customer portal ends the link itself (Svix's logout with its token), not just
 * this tab's copy of it: the same link opened again afterwards, from the browser's history or by
 * whoever else has it, no longer works. The operator console's sign-out leaves the admin token be.
 */
import { describe, expect, it } from "vitest";
import { signIn, useDashboard } from "../support/browser.js";

describe("signing out", () => {
  const ui = useDashboard();

  const status = async (token: string, path: string) =>
    (await fetch(`${ui.h.url}${path}`, { headers: { authorization: `Bearer ${token}` } })).status;

  it("of the portal revokes the link's token", async () => {
    const { h, page } = ui;
    const app = await h.svix.application.create({ name: "Acme" });
    const link = await h.svix.authentication.appPortalAccess(app.id, { expiry: 3600 });
    await page.goto(link.url);
    await page.getByRole("heading", { name: "Endpoints of Acme" }).waitFor();

    await page.getByRole("button", { name: "Sign out" }).click();
    // It says what happened, not that the link was bad.
    await page.getByRole("heading", { name: "You have signed out" }).waitFor();
    expect(await page.title()).toBe("You have signed out · hookline");
    expect(await status(link.token, `/api/v1/app/${app.id}/endpoint`)).toBe(401);

    // The link from the history shows the page that says so, not the application.
    await page.goto(link.url);
    await page.getByText("Your session has ended").waitFor();
    await page
      .getByRole("heading", { name: "This portal link has expired or is incomplete" })
      .waitFor();
  });

  it("of the console keeps the admin token working", async () => {
    const { h, page } = ui;
    await signIn(page, h.url, h.token);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Admin token").waitFor();
    expect(await status(h.token, "/api/v1/app")).toBe(200);
  });
});
