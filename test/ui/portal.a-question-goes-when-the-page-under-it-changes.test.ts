/**
 * The question asked before rotating a secret or deleting an endpoint (ui/src/confirm.ts) goes,
 * answered Cancel, when the page under it is drawn again without the address changing: the portal
 * link ended meanwhile (the page says so), or the endpoint was deleted elsewhere (the page says it
 * could not be loaded). It went only when the address changed, so it stayed open over the page
 * that said the link had ended, still asking to delete the endpoint or rotate its secret.
 */
import { describe, expect, it } from "vitest";
import { useDashboard } from "../support/browser.js";

describe("customer portal: a question over a page that changes", () => {
  const ui = useDashboard();

  /** A new application with one endpoint, its page open in the portal; the link's token. */
  async function endpointPage(): Promise<{ appId: string; epId: string; token: string }> {
    const { h, rx, page } = ui;
    const app = await h.svix.application.create({ name: "Acme" });
    const ep = await h.svix.endpoint.create(app.id, { url: rx.url("/hook") });
    const link = await h.svix.authentication.appPortalAccess(app.id, { expiry: 3600 });
    await page.goto(link.url);
    await page.getByRole("heading", { name: "Endpoints of Acme" }).waitFor();
    await page.goto(`${h.url}/portal/#/app/${app.id}/endpoint/${ep.id}`);
    await page.getByRole("heading", { level: 1, name: rx.url("/hook") }).waitFor();
    return { appId: app.id, epId: ep.id, token: link.token };
  }

  it("goes when the portal link ends while it is asked", async () => {
    const { h, rx, page } = ui;
    const { appId, epId, token } = await endpointPage();
    await page.getByRole("button", { name: "Delete endpoint" }).click();
    await page.getByRole("dialog", { name: `Delete ${rx.url("/hook")}?` }).waitFor();

    const ended = await fetch(`${h.url}/api/v1/auth/logout`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
    });
    expect(ended.status).toBeLessThan(300);
    // The next update is refused, and the page says the link has ended.
    await page
      .getByRole("heading", { name: "This portal link has expired or is incomplete" })
      .waitFor({ timeout: 15_000 });
    expect(await page.getByRole("dialog").count()).toBe(0);
    expect((await h.api("GET", `/api/v1/app/${appId}/endpoint/${epId}`)).status).toBe(200);
  });

  it("goes when the endpoint is deleted elsewhere while it is asked", async () => {
    const { h, page } = ui;
    const { appId, epId } = await endpointPage();
    await page.getByRole("button", { name: "Rotate secret" }).click();
    await page.getByRole("dialog", { name: "Rotate the signing secret?" }).waitFor();

    await h.svix.endpoint.delete(appId, epId);
    await page
      .getByRole("heading", { name: "Could not load this page" })
      .waitFor({ timeout: 15_000 });
    expect(await page.getByRole("dialog").count()).toBe(0);
  });
});
