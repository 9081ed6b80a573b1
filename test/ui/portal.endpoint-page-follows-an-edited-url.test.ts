/**
 * After an endpoint's URL is changed (on its page, or by anyone through the API), its page names it
 * by the new URL: the heading kept the URL the page was opened with, and "Delete endpoint" asked to
 * delete that old URL.
 */
import { describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: an endpoint's page after its URL changed", () => {
  const ui = useDashboard();

  it("names the endpoint by its new URL", async () => {
    const { h, rx, page } = ui;
    const app = await h.svix.application.create({ name: "Acme" });
    const ep = await h.svix.endpoint.create(app.id, { url: rx.url("/old") });
    await openPortal(page, h, app.id);
    await page.goto(`${h.url}/portal/#/app/${app.id}/endpoint/${ep.id}`);
    await page.getByRole("heading", { level: 1, name: rx.url("/old") }).waitFor();

    const edit = page.locator("form").filter({ hasText: "Save changes" });
    await edit.getByLabel("URL").fill(rx.url("/new"));
    await edit.getByRole("button", { name: "Save changes" }).click();
    await page
      .getByRole("heading", { level: 1, name: rx.url("/new") })
      .waitFor({ timeout: 15_000 });

    // Changed elsewhere, it follows at the next update.
    await h.svix.endpoint.patch(app.id, ep.id, { url: rx.url("/newer") });
    await page
      .getByRole("heading", { level: 1, name: rx.url("/newer") })
      .waitFor({ timeout: 15_000 });

    await page.getByRole("button", { name: "Delete endpoint" }).click();
    const asked = page.getByRole("dialog", { name: `Delete ${rx.url("/newer")}?` });
    await asked.getByRole("button", { name: "Cancel" }).click();
    await asked.waitFor({ state: "detached" });
    expect((await h.svix.endpoint.get(app.id, ep.id)).url).toBe(rx.url("/newer"));
  });
});
