/**
 * The customer portal opened from a portal link shows its own application, and nothing of another
 * application even when the page is tampered with: a changed address, a changed session, or
 * requests made by hand with the portal's token.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { screenshot, useDashboard } from "../support/browser.js";

describe("customer portal", () => {
  const ui = useDashboard();
  let mine: { id: string };
  let theirs: { id: string };
  const theirUrlPath = "/globex-private-hook";

  beforeAll(async () => {
    const { h, rx } = ui;
    mine = await h.svix.application.create({ name: "Acme" });
    theirs = await h.svix.application.create({ name: "Globex" });
    await h.svix.endpoint.create(mine.id, { url: rx.url("/acme-hook") });
    await h.svix.endpoint.create(theirs.id, { url: rx.url(theirUrlPath) });
  });

  const body = () => ui.page.locator("body").innerText();

  it("opens from the link on its own application, and drops the token from the address", async () => {
    const { h, rx, page } = ui;
    const access = await h.svix.authentication.appPortalAccess(mine.id, { expiry: 3600 });
    await page.goto(access.url);
    await page.getByRole("heading", { name: "Endpoints of Acme" }).waitFor();
    await page.getByRole("link", { name: rx.url("/acme-hook") }).waitFor();
    expect(page.url()).not.toContain(access.token);
    expect(await page.getByRole("navigation").innerText()).not.toContain("Dead letters");
    await screenshot(page, "portal-endpoints");
  });

  it("shows nothing of another application when the address names it", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${theirs.id}/endpoints`);
    await page.getByRole("heading", { name: "Not found" }).waitFor();
    expect(await body()).not.toContain(theirUrlPath);
    await page.goto(`${h.url}/portal/#/dlq`);
    await page.getByRole("heading", { name: "Not found" }).waitFor();
  });

  it("shows nothing when the session is edited to name another application", async () => {
    const { h, page } = ui;
    await page.evaluate(
      `sessionStorage.setItem("hookline.portalApp", ${JSON.stringify(theirs.id)})`,
    );
    await page.goto(`${h.url}/portal/#/app/${theirs.id}/endpoints`);
    await page.getByRole("heading", { name: "Could not load this page" }).waitFor();
    expect(await body()).not.toContain(theirUrlPath);
    expect(await body()).not.toContain("Globex");
  });

  it("refuses requests made by hand with the portal token", async () => {
    const { page } = ui;
    const statuses = await page.evaluate<number[]>(`(async () => {
      const auth = { authorization: "Bearer " + sessionStorage.getItem("hookline.token") };
      const paths = [
        "/api/v1/app/${theirs.id}/endpoint",
        "/api/v1/app/${theirs.id}/msg",
        "/api/v1/app",
        "/api/v1/dlq",
        "/api/v1/app/${mine.id}/endpoint",
      ];
      return Promise.all(paths.map(async (p) => (await fetch(p, { headers: auth })).status));
    })()`);
    expect(statuses).toEqual([404, 404, 403, 403, 200]);
  });

  it("says the link has ended once its tokens are expired, while the page is open", async () => {
    const { h, page } = ui;
    await page.evaluate(`sessionStorage.setItem("hookline.portalApp", ${JSON.stringify(mine.id)})`);
    await page.goto(`${h.url}/portal/#/app/${mine.id}/messages`);
    await page.getByRole("heading", { name: "Messages of Acme" }).waitFor();
    await h.svix.authentication.expireAll(mine.id, {});
    // The next live update is refused (401), and the page says why instead of showing data.
    await page.getByRole("heading", { name: /portal link has expired/ }).waitFor();
    await screenshot(page, "portal-expired");
  });
});
