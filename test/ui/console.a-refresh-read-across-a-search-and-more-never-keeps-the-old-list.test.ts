/**
 * A person pages a busy message log on with "More". A refresh finds more than a page of new
 * messages and reads a second page, which is slow to come; meanwhile the person searches for one
 * event type and pages the search on with "More". The refresh's two pages, of the list before the
 * search, were then kept for the refreshes after as the rows below the search's first page: the
 * search showed messages of the other event type under its first page until the whole list was
 * read again 30 s later. A refresh that a newer read of the list overtook reads the list afresh.
 */
import { describe, expect, it } from "vitest";
import { useDashboard } from "../support/browser.js";
import { countListReads, openOnTheTestsClock, runClockUntilARefresh } from "../support/console.js";

describe("operator console: a refresh read across a search and More", () => {
  const ui = useDashboard({ signedIn: true });

  it("never keeps the list as it was before the search", async () => {
    const { h, page } = ui;
    const app = await h.svix.application.create({ name: "Busy" });
    // Newest first: the two event types take turns, so every page of the log holds both.
    const paid: string[] = [];
    const send = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const eventType = i % 2 === 0 ? "order.paid" : "order.refunded";
        const msg = await h.svix.message.create(app.id, { eventType, payload: { i } });
        if (eventType === "order.paid") paid.unshift(msg.id);
      }
    };
    await send(120);
    const path = `/api/v1/app/${app.id}/msg`;
    const reads = countListReads(page, path);
    const refresh = () => runClockUntilARefresh(page, () => reads.first);

    await openOnTheTestsClock(page, `${h.url}/ui/#/app/${app.id}/messages`);
    const list = page.getByRole("table", { name: "Newest messages first" });
    const rows = list.locator("tbody tr");
    await rows.nth(49).waitFor();
    await page.clock.pauseAt(Date.now() + 1_000);
    const more = page.getByRole("button", { name: "More messages" });
    await more.click();
    await rows.nth(99).waitFor();

    // More than a page comes in: the next refresh reads a second page, which is held.
    await send(60);
    let release = () => {};
    const released = new Promise<void>((r) => (release = r));
    let heldArrived = () => {};
    const held = new Promise<void>((r) => (heldArrived = r));
    let heldAnswered = false;
    let holding = true;
    await page.route(
      (url) => url.pathname === path && url.searchParams.has("iterator"),
      async (route) => {
        if (!holding) return route.continue();
        holding = false;
        heldArrived();
        await released;
        await route.continue();
        heldAnswered = true;
      },
    );
    await refresh();
    await held;

    // The search, paged on with More, is shown whole while the refresh's page is still held.
    await page.getByLabel("Event types").fill("order.paid");
    await page.getByRole("button", { name: "Search" }).click();
    const shownIds = () => list.locator("tbody tr a[data-key^='msg-']").allTextContents();
    await expect.poll(shownIds, { timeout: 15_000 }).toEqual(paid.slice(0, 50));
    // Its second page is its last: 90 messages of the type in all.
    await more.click();
    await expect.poll(shownIds, { timeout: 15_000 }).toEqual(paid);

    // The held page comes in; the refreshes after show the search alone.
    release();
    await expect.poll(() => heldAnswered, { timeout: 15_000 }).toBe(true);
    await page.unroute(() => true);
    for (let i = 0; i < 3; i++) await refresh();
    // One more, so the last read started is drawn before the list is looked at.
    await refresh();
    expect(await shownIds()).toEqual(paid);
  }, 120_000);
});
