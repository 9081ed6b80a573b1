/**
 * A person pages a message log on with "More" a second time; the third page is slow to come, and
 * a refresh starts meanwhile. The refresh read the first page, joined it to the two pages kept
 * from before, and ended first; "More" then ended, and its answer, older than the refresh's, was
 * dropped: the third page showed only at the refresh after (2 s on), so "More" seemed to do
 * nothing. A refresh while the whole list is being read waits for that read.
 */
import type { Request } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useDashboard } from "../support/browser.js";
import { openOnTheTestsClock } from "../support/console.js";

describe("operator console: More pressed while a refresh runs", () => {
  const ui = useDashboard({ signedIn: true });

  it("shows the page More read without waiting for another refresh", async () => {
    const { h, page } = ui;
    const app = await h.svix.application.create({ name: "Busy" });
    const ids: string[] = [];
    for (let i = 0; i < 130; i++) {
      ids.unshift(
        (await h.svix.message.create(app.id, { eventType: "order.paid", payload: { i } })).id,
      );
    }
    const path = `/api/v1/app/${app.id}/msg`;
    // The reads of the list under way.
    const reading = new Set<Request>();
    page.on("request", (r) => {
      if (new URL(r.url()).pathname === path) reading.add(r);
    });
    page.on("requestfinished", (r) => reading.delete(r));
    page.on("requestfailed", (r) => reading.delete(r));

    await openOnTheTestsClock(page, `${h.url}/ui/#/app/${app.id}/messages`);
    const list = page.getByRole("table", { name: "Newest messages first" });
    const shownIds = () => list.locator("tbody tr a[data-key^='msg-']").allTextContents();
    await list.getByRole("link", { name: ids[0]!, exact: true }).waitFor();
    await page.clock.pauseAt(Date.now() + 1_000);
    const more = page.getByRole("button", { name: "More messages" });
    await more.click();
    await list.getByRole("link", { name: ids[99]!, exact: true }).waitFor();

    // The third page, the last, is held.
    let release = () => {};
    const released = new Promise<void>((r) => (release = r));
    let heldArrived = () => {};
    const held = new Promise<void>((r) => (heldArrived = r));
    await page.route(
      (url) => url.pathname === path && url.searchParams.get("iterator") === ids[99],
      async (route) => {
        heldArrived();
        await released;
        await route.continue();
      },
    );
    await more.click();
    await held;

    // A refresh starts while it is held, and ends (or waits for it).
    await page.clock.runFor(2_500);
    await page.evaluate(() => 0);
    await expect.poll(() => reading.size, { timeout: 15_000 }).toBe(1);

    // The third page comes in: it is shown, with no refresh after.
    release();
    await expect.poll(() => reading.size, { timeout: 15_000 }).toBe(0);
    await expect.poll(shownIds, { timeout: 15_000 }).toEqual(ids);
    expect(await more.count()).toBe(0);
  }, 120_000);
});
