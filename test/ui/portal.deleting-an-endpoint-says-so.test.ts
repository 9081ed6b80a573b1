/**
 * Deleting an endpoint says it was deleted. The endpoint list opened under whatever the previous
 * action had said: after a refused test event, a red "the endpoint is disabled" stayed on screen
 * as if the delete had failed; after enabling it, "Endpoint enabled". The refusal is announced as
 * an error (the toast's alert region), the deletion politely (its status), and the error is gone
 * from the alert region once the deletion is said.
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
    const error = page.locator("#toast").getByRole("alert");
    const toast = page.locator("#toast").getByRole("status");
    await error.getByText("the endpoint is disabled").waitFor();
    expect(await toast.textContent()).toBe("");

    await page.getByRole("button", { name: "Delete endpoint" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete endpoint" }).click();
    await page.getByRole("heading", { name: "Endpoints of Acme" }).waitFor();
    await toast.getByText(`Endpoint ${rx.url("/old")} deleted`).waitFor();
    expect(await error.textContent()).toBe("");
    expect((await h.api("GET", `/api/v1/app/${app.id}/endpoint/${ep.id}`)).status).toBe(404);
  });
});
