/**
 * On an endpoint's page a person shows only the failed attempts, opens the message of one, and
 * goes back with the browser: the list still shows the failed attempts. The choice lived only in
 * the page, so going back showed every attempt again with "All attempts" chosen.
 */
import { describe, expect, it } from "vitest";
import { useDashboard } from "../support/browser.js";

describe("operator console: going back from a message to an endpoint's failed attempts", () => {
  let n = 0;
  // Every other request fails; one attempt each, so each message ends with one result.
  const ui = useDashboard({
    signedIn: true,
    receiver: () => (n++ % 2 === 0 ? { status: 200, body: "ok" } : { status: 500, body: "no" }),
  });

  it("shows the failed attempts still", async () => {
    const { h, rx, page } = ui;
    const app = await h.svix.application.create({ name: "Acme" });
    const ep = await h.svix.endpoint.create(app.id, { url: rx.url("/hooks") });
    await h.api("PUT", `/api/v1/app/${app.id}/endpoint/${ep.id}/delivery-policy`, {
      retry: { preset: "manual" },
    });
    for (let i = 0; i < 4; i++) {
      await h.svix.message.create(app.id, { eventType: "order.paid", payload: { i } });
    }
    await expect.poll(() => rx.on("/hooks").length, { timeout: 15_000 }).toBe(4);

    await page.goto(`${h.url}/ui/#/app/${app.id}/endpoint/${ep.id}`);
    const rows = page.getByRole("table", { name: "Recent attempts" }).locator("tbody tr");
    await rows.nth(3).waitFor();
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
