/**
 * A page that could not load because hookline did not answer (or a proxy in front of it answered
 * 502) tries again at the next update, as a page already shown does, and shows itself once
 * hookline is back. It said "Could not load this page" until the reader reloaded it: a portal
 * opened during a restart stayed broken.
 */
import { describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: a page that could not load", () => {
  const ui = useDashboard();

  it("tries again and shows itself once hookline answers", async () => {
    const { h, page } = ui;
    const app = await h.svix.application.create({ name: "Acme" });
    await h.svix.message.create(app.id, { eventType: "order.paid", payload: {} });
    await openPortal(page, h, app.id);

    const api = (url: URL) => url.pathname.startsWith("/api/");
    await page.route(api, (route) =>
      route.fulfill({ status: 502, contentType: "text/html", body: "<h1>502 Bad Gateway</h1>" }),
    );
    await page.getByRole("navigation").getByRole("link", { name: "Messages" }).click();
    await page.getByRole("heading", { name: "Could not load this page" }).waitFor();
    expect(await page.locator("main").innerText()).toContain("HTTP 502");

    await page.unroute(api);
    await page.getByRole("heading", { name: "Messages of Acme" }).waitFor({ timeout: 15_000 });
    await page
      .getByRole("table", { name: "Newest messages first" })
      .getByText("order.paid")
      .waitFor();
  });

  it("does not try again a page that is not there", async () => {
    const { h, page } = ui;
    const app = (await h.svix.application.list()).data[0]!;
    const reads: string[] = [];
    page.on("request", (r) => reads.push(r.url()));
    await page.goto(`${h.url}/portal/#/app/${app.id}/message/msg_missing`);
    await page.getByRole("heading", { name: "Could not load this page" }).waitFor();
    const before = reads.length;
    await page.waitForTimeout(4_500);
    expect(reads.length).toBe(before);
  });
});
