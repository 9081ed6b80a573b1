/**
 * Deleting an endpoint says it was deleted. The endpoint list opened under whatever the previous
 * action had said: after a refused test event, a red "the endpoint is disabled" stayed on screen
 * as if the delete had failed; after enabling it, "Endpoint enabled".
 */
import { describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: deleting an endpoint", () => {
  const ui = useDashboard();

  it("says it was deleted, not what the action before it said", async () => {
    const { h, rx, page } = ui;
    const app = await h.svix.application.create({ name: "Acme" });
    const ep = await h.svix.endpoint.create(app.id, { url: rx.url("/old"), disabled: true });
    await openPortal(page, h, app.id);
    await page.getByRole("link", { name: rx.url("/old") }).click();
    await page.getByRole("heading", { name: rx.url("/old") }).waitFor();

    // A test event to a disabled endpoint is refused, in red.
    await page.getByRole("button", { name: "Send test event" }).click();
    const toast = page.getByRole("status").and(page.locator("#toast"));
    await toast.getByText("the endpoint is disabled").waitFor();

    await page.getByRole("button", { name: "Delete endpoint" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete endpoint" }).click();
    await page.getByRole("heading", { name: "Endpoints of Acme" }).waitFor();
    await toast.getByText(`Endpoint ${rx.url("/old")} deleted`).waitFor();
    expect(await page.locator("#toast").getAttribute("class")).not.toContain("error");
    expect((await h.api("GET", `/api/v1/app/${app.id}/endpoint/${ep.id}`)).status).toBe(404);
  });
});
