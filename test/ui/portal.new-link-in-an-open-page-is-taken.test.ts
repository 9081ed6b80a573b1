/**
 * A portal link opened in a portal page that is already open (only the fragment changes, so the
 * page does not reload: an embedding iframe given a fresh link, a pasted link) is taken like the
 * first one: its token goes to sessionStorage and leaves the address bar.
 */
import { describe, expect, it } from "vitest";
import { useDashboard } from "../support/browser.js";

describe("customer portal: a new link in an open page", () => {
  const ui = useDashboard();

  it("shows the new link's application and drops its token from the address", async () => {
    const { h, rx, page } = ui;
    const acme = await h.svix.application.create({ name: "Acme" });
    const globex = await h.svix.application.create({ name: "Globex" });
    await h.svix.endpoint.create(acme.id, { url: rx.url("/acme-hook") });
    await h.svix.endpoint.create(globex.id, { url: rx.url("/globex-hook") });
    const first = await h.svix.authentication.appPortalAccess(acme.id, { expiry: 3600 });
    const second = await h.svix.authentication.appPortalAccess(globex.id, { expiry: 3600 });
    expect(new URL(second.url).pathname).toBe(new URL(first.url).pathname);

    await page.goto(first.url);
    await page.getByRole("link", { name: rx.url("/acme-hook") }).waitFor();
    await page.evaluate("window.sameDocument = true");

    await page.goto(second.url);
    await page.getByRole("heading", { name: "Endpoints of Globex" }).waitFor({ timeout: 10_000 });
    await page.getByRole("link", { name: rx.url("/globex-hook") }).waitFor();
    expect(page.url()).not.toContain(second.token);
    expect(await page.evaluate<string | null>("sessionStorage.getItem('hookline.token')")).toBe(
      second.token,
    );
    // The same document all along: the second link was taken without a reload.
    expect(await page.evaluate<boolean>("window.sameDocument === true")).toBe(true);
  });
});
