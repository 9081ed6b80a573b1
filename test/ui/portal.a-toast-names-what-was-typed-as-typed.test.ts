/**
 * A toast names what the customer typed as they typed it. Every toast had the times in it turned
 * into the browser's, to show hookline's own words (a replay queued behind a probe "at …Z") as
 * the page shows times; but a toast also names an endpoint's URL or an id someone typed, and an
 * endpoint added at `…/hook?since=2026-12-06T09:00:00Z` was said to be added at
 * `…/hook?since=12/6/2026, 2:30:00 PM GMT+5:30`, an address that is not the endpoint's. Only
 * hookline's words are given local times now.
 */
import { describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: what a toast names", () => {
  const ui = useDashboard();

  it("keeps a typed URL and a typed id as they were typed", async () => {
    const { h, rx, browser } = ui;
    const app = await h.svix.application.create({ name: "Acme" });
    const context = await browser.newContext({ timezoneId: "Asia/Kolkata", locale: "en-US" });
    const page = await context.newPage();
    await openPortal(page, h, app.id);
    const toast = page.locator("#toast");

    const url = rx.url("/hook?since=2026-12-06T09:00:00Z");
    const add = page.locator("form").filter({ hasText: "Add an endpoint" });
    await add.getByLabel("URL").fill(url);
    await add.getByRole("button", { name: "Add endpoint" }).click();
    await toast.getByText(/added$/).waitFor({ timeout: 15_000 });
    expect(await toast.innerText()).toBe(`Endpoint ${url} added`);

    await page.goto(`${h.url}/portal/#/app/${app.id}/messages`);
    const search = page.getByRole("search");
    await search.getByLabel("Message or event id").fill("2026-12-06T09:00:00Z");
    await search.getByRole("button", { name: "Search" }).click();
    await toast.getByText(/^No message/).waitFor({ timeout: 15_000 });
    expect(await toast.innerText()).toBe("No message 2026-12-06T09:00:00Z in Acme");
    await context.close();
  });
});
