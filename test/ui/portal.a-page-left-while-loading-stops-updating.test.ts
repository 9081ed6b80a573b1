/**
 * A page left before it finished loading (a slow answer, and the reader already clicked on) is
 * not updated behind the page shown instead. Its live updates used to be kept with the new page's
 * and ran every two seconds until the next navigation: the endpoints list, with one statistics
 * request per endpoint, went on polling under the message log.
 */
import { describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: a page left while it loads", () => {
  const ui = useDashboard();

  it("is not updated behind the page shown", async () => {
    const { h, rx, page } = ui;
    const app = await h.svix.application.create({ name: "Acme" });
    await h.svix.endpoint.create(app.id, { url: rx.url("/hook") });
    await openPortal(page, h, app.id);
    await page.getByRole("navigation").getByRole("link", { name: "Messages" }).click();
    await page.getByRole("table", { name: "Newest messages first" }).waitFor();

    // The endpoints page's first request is slow; the reader goes back to the messages meanwhile.
    let slowed = false;
    await page.route(
      (url) => url.pathname === `/api/v1/app/${app.id}`,
      async (route) => {
        if (!slowed) {
          slowed = true;
          await new Promise((r) => setTimeout(r, 1_500));
        }
        await route.continue();
      },
    );
    await page.getByRole("navigation").getByRole("link", { name: "Endpoints" }).click();
    await page.getByRole("navigation").getByRole("link", { name: "Messages" }).click();
    await page.getByRole("table", { name: "Newest messages first" }).waitFor();
    await page.waitForTimeout(2_500);

    const endpointReads: string[] = [];
    page.on("request", (r) => {
      if (new URL(r.url()).pathname.includes("/endpoint")) endpointReads.push(r.url());
    });
    await page.waitForTimeout(4_500);
    expect(endpointReads).toEqual([]);
    await page.getByRole("heading", { name: "Messages of Acme" }).waitFor({ timeout: 5_000 });
  });
});
