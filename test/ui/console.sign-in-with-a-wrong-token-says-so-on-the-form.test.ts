/**
 * A token refused at sign-in is said on the sign-in form, and the token typed stays for a second
 * look. The refusal went through the handler for a session that stops working: the form was drawn
 * anew (empty, its message gone) and the toast said "Your session has ended", when none had begun.
 */
import { describe, expect, it } from "vitest";
import { useDashboard } from "../support/browser.js";

describe("operator console: signing in with a wrong token", () => {
  const ui = useDashboard();

  it("says on the form that the token is not valid, and signs in with the right one", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/ui/`);
    await page.getByLabel("Admin token").fill("hl_admin_not-a-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    const form = page.locator("form");
    await form.getByRole("alert").getByText("the token is not valid").waitFor({ timeout: 15_000 });
    expect(await page.getByLabel("Admin token").inputValue()).toBe("hl_admin_not-a-token");
    expect(await page.locator("#toast").innerText()).not.toContain("session has ended");
    expect(await page.evaluate("sessionStorage.length")).toBe(0);

    await page.getByLabel("Admin token").fill(h.token);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Applications" }).waitFor({ timeout: 15_000 });
  });
});
