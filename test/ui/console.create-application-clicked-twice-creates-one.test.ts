/**
 * An operator who double-clicks "Create application" (or presses Enter again) while hookline has
 * not yet answered gets one application. The console's forms sent their request on every submit,
 * as the portal's "Add endpoint" did: two applications of one name, and from the DLQ page two bulk
 * replay jobs over the same records. Both now send once at a time.
 */
import { describe, expect, it } from "vitest";
import { useDashboard } from "../support/browser.js";

describe("operator console: creating an application", () => {
  const ui = useDashboard({ signedIn: true });

  it("creates one however often the form is sent while it waits", async () => {
    const { h, page } = ui;
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    let posts = 0;
    await page.route("**/api/v1/app", async (route) => {
      if (route.request().method() === "POST") {
        posts += 1;
        await held;
      }
      await route.continue();
    });
    const form = page.locator("form").filter({ hasText: "New application" });
    await form.getByLabel("Name").fill("Globex");
    await form.getByRole("button", { name: "Create application" }).dblclick();
    await form.getByLabel("Name").press("Enter");
    release();

    await page.getByText("Application Globex created").waitFor({ timeout: 15_000 });
    expect(posts).toBe(1);
    const apps = await h.svix.application.list();
    expect(apps.data.filter((a) => a.name === "Globex")).toHaveLength(1);
    // Answered and the list refreshed, the form can be sent again (the toast comes before the
    // refresh). Busy is aria-disabled, which CSS's :enabled does not see; the role's state does.
    await form
      .getByRole("button", { name: "Create application", disabled: false })
      .waitFor({ timeout: 15_000 });
  });
});
