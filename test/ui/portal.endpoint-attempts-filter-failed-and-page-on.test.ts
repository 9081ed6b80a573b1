/**
 * On an endpoint's page a customer finds the failed attempts among many good ones: "Failed only"
 * keeps those, and "More attempts" goes past the newest 20. Before, the page showed the 20 newest
 * attempts and nothing else, so a failure older than that could not be found from the endpoint.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: an endpoint's attempts", () => {
  const ui = useDashboard({
    // The first event is refused; every later one is taken.
    receiver: (_req, index) => (index === 0 ? { status: 400, body: "no" } : { status: 200 }),
  });
  let appId: string;
  let epId: string;
  let failedMsg: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    epId = (await h.svix.endpoint.create(appId, { url: rx.url("/hook") })).id;
    for (let i = 0; i < 25; i++) {
      const msg = await h.svix.message.create(appId, { eventType: "order.paid", payload: { i } });
      await h.waitFor((e) => e.type === "delivery" && e.messageId === msg.id && e.attempt !== null);
      if (i === 0) failedMsg = msg.id;
    }
    await openPortal(page, h, appId);
  });

  it("shows only the failed attempts, older than the newest 20", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${epId}`);
    const table = page.getByRole("table", { name: "Recent attempts" });
    const rows = table.locator("tbody tr");
    await rows.nth(19).waitFor();
    expect(await rows.count()).toBe(20);
    expect(await table.getByRole("link", { name: failedMsg }).count()).toBe(0);

    await page.getByLabel("Show").selectOption({ label: "Failed attempts" }, { timeout: 15_000 });
    await table.getByRole("link", { name: failedMsg }).waitFor({ timeout: 15_000 });
    expect(await rows.count()).toBe(1);

    await page.getByLabel("Show").selectOption({ label: "All attempts" });
    await rows.nth(19).waitFor();
    await page.getByRole("button", { name: "More attempts" }).click();
    await rows.nth(24).waitFor({ timeout: 15_000 });
    expect(await rows.count()).toBe(25);
    await table.getByRole("link", { name: failedMsg }).waitFor();
  });
});
