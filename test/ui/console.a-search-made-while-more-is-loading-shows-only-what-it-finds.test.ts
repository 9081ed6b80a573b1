/**
 * A person pages a message log on with "More" and, while the pages after the first are still
 * loading (a slow network, a loaded hookline), searches for one event type. The search's first
 * page was drawn, and then the older read ended and kept its rows (every event type) for the
 * refreshes that read the first page only: the next refresh showed the search's first page
 * followed by messages of other event types, and a "More" button, until the whole list was read
 * again 30 s later. Only the newest whole read of the list keeps its rows now.
 */
import { describe, expect, it } from "vitest";
import { useDashboard } from "../support/browser.js";
import { countListReads, openOnTheTestsClock, runClockUntilARefresh } from "../support/console.js";

const MESSAGES = 240;

describe("operator console: a search made while More is loading", () => {
  const ui = useDashboard({ signedIn: true });

  it("shows only the messages it finds at the refreshes after", async () => {
    const { h, page } = ui;
    const app = await h.svix.application.create({ name: "Busy" });
    // Newest first: the two event types take turns, so every page of the log holds both.
    const wanted: string[] = [];
    for (let i = 0; i < MESSAGES; i++) {
      const eventType = i % 2 === 0 ? "order.paid" : "order.refunded";
      const msg = await h.svix.message.create(app.id, { eventType, payload: { i } });
      if (eventType === "order.paid") wanted.unshift(msg.id);
    }
    const path = `/api/v1/app/${app.id}/msg`;
    const reads = countListReads(page, path);

    await openOnTheTestsClock(page, `${h.url}/ui/#/app/${app.id}/messages`);
    const list = page.getByRole("table", { name: "Newest messages first" });
    const rows = list.locator("tbody tr");
    await rows.nth(49).waitFor();
    await page.clock.pauseAt(Date.now() + 1_000);
    const more = page.getByRole("button", { name: "More messages" });
    await more.click();
    await rows.nth(99).waitFor();

    // The next page read after the first is held: "More" reads the first page, then waits.
    let release = () => {};
    const released = new Promise<void>((r) => (release = r));
    let heldArrived = () => {};
    const held = new Promise<void>((r) => (heldArrived = r));
    let laterAnswered = 0;
    await page.route(
      (url) => url.pathname === path && url.searchParams.has("iterator"),
      async (route) => {
        heldArrived();
        await released;
        await route.continue();
        laterAnswered++;
      },
    );
    await more.click();
    await held;

    await page.getByLabel("Event types").fill("order.paid");
    await page.getByRole("button", { name: "Search" }).click();
    const shownIds = () => list.locator("tbody tr a[data-key^='msg-']").allTextContents();
    await expect.poll(shownIds, { timeout: 15_000 }).toEqual(wanted.slice(0, 50));

    // The held read ends (its next page too), and a refresh or two reads the first page again.
    release();
    await expect.poll(() => laterAnswered, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    await page.unroute(() => true);
    for (let i = 0; i < 2; i++) await runClockUntilARefresh(page, () => reads.first);
    // One more, so the last read started is drawn before the list is looked at.
    await runClockUntilARefresh(page, () => reads.first);
    expect(await shownIds()).toEqual(wanted.slice(0, 50));
  }, 120_000);
});
