/**
 * A customer who double-clicks "Add endpoint" (or presses Enter again) while hookline has not yet
 * answered gets one endpoint. The form sent the request again on every submit until the first
 * answer came back, and each request made an endpoint: two endpoints at the same URL, so the
 * receiver got every event twice.
 */
import { describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: adding an endpoint", () => {
  const ui = useDashboard();

  it("adds one endpoint however often the form is sent while it waits", async () => {
    const { h, rx, page } = ui;
    const app = await h.svix.application.create({ name: "Acme" });
    await openPortal(page, h, app.id);

    // hookline's answer is held until the customer has clicked twice and pressed Enter.
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    let posts = 0;
    await page.route("**/api/v1/app/*/endpoint", async (route) => {
      if (route.request().method() === "POST") {
        posts += 1;
        await held;
      }
      await route.continue();
    });
    const form = page.locator("form").filter({ hasText: "Add an endpoint" });
    await form.getByLabel("URL").fill(rx.url("/hook"));
    await form.getByRole("button", { name: "Add endpoint" }).dblclick();
    await form.getByLabel("URL").press("Enter");
    release();

    await page.getByText(`Endpoint ${rx.url("/hook")} added`).waitFor({ timeout: 15_000 });
    await page.getByRole("link", { name: rx.url("/hook") }).waitFor({ timeout: 15_000 });
    expect(posts).toBe(1);
    const list = await h.svix.endpoint.list(app.id);
    expect(list.data.map((e) => e.url)).toEqual([rx.url("/hook")]);
    // Answered, the form can be sent again (busy is aria-disabled, which CSS's :enabled misses).
    await form
      .getByRole("button", { name: "Add endpoint", disabled: false })
      .waitFor({ timeout: 15_000 });
  });
});
