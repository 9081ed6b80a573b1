/**
 * On an endpoint's page a person shows only the failed attempts, opens the message of one, and
 * goes back with the browser: the list still shows the failed attempts. The choice lived only in
 * the page, so going back showed every attempt again with "All attempts" chosen.
 */
import { describe, expect, it } from "vitest";
import { useDashboard } from "../support/browser.js";
import { anEndpointPageWithFourAttempts, everyOtherFails } from "../support/console.js";

describe("operator console: going back from a message to an endpoint's failed attempts", () => {
  const ui = useDashboard({ signedIn: true, receiver: everyOtherFails() });

  it("shows the failed attempts still", async () => {
    const { rx, page } = ui;
    const rows = await anEndpointPageWithFourAttempts(ui);
    await page.getByLabel("Show").selectOption({ label: "Failed attempts" });
    await rows.nth(2).waitFor({ state: "detached" });
    expect(await rows.allInnerTexts()).toEqual([
      expect.stringContaining("500"),
      expect.stringContaining("500"),
    ]);
    await rows.first().getByRole("link").click();
    await page.getByRole("heading", { name: /order\.paid msg_/ }).waitFor();

    await page.goBack();
    await page.getByRole("heading", { level: 1, name: rx.url("/hooks") }).waitFor();
    await rows.first().waitFor();
    expect(await page.getByLabel("Show").inputValue()).toBe("&status=2");
    // Two updates later, still only the failed ones.
    await page.waitForTimeout(4_500);
    expect(await rows.count()).toBe(2);
  });
});
