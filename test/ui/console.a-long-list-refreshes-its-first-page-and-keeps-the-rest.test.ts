/**
 * A list paged on with "More" read every page shown again at every 2 s refresh: three pages of
 * messages were three requests, one after the other, at every refresh for as long as the page
 * stayed open, and twenty pages twenty. A refresh now reads the first page, where new messages
 * come in, and keeps the pages after it as read; it reads them again every 30 s. A message that
 * comes in on top pushes the first page's last message past it, and that message stays on show.
 */
import { describe, expect, it } from "vitest";
import { useDashboard } from "../support/browser.js";
import { countListReads, openOnTheTestsClock, runClockUntilARefresh } from "../support/console.js";

const MESSAGES = 120;

describe("operator console: a message log paged on, left open", () => {
  const ui = useDashboard({ signedIn: true });

  it("refreshes its first page only, shows a new message without losing one, and reads the rest every 30 s", async () => {
    const { h, page } = ui;
    const app = await h.api<{ id: string }>("POST", "/api/v1/app", { name: "Busy" });
    const appId = app.body.id;
    const ids: string[] = [];
    for (let i = 0; i < MESSAGES; i++) {
      const msg = await h.svix.message.create(appId, { eventType: "order.paid", payload: { i } });
      ids.push(msg.id);
    }
    const reads = countListReads(page, `/api/v1/app/${appId}/msg`);

    await openOnTheTestsClock(page, `${h.url}/ui/#/app/${appId}/messages`);
    const list = page.getByRole("table", { name: "Newest messages first" });
    const rows = list.locator("tbody tr");
    const more = page.getByRole("button", { name: "More messages" });
    await list.getByRole("link", { name: ids.at(-1)!, exact: true }).waitFor();
    await more.click();
    await list.getByRole("link", { name: ids.at(-51)!, exact: true }).waitFor();
    await more.click();
    await list.getByRole("link", { name: ids[0]!, exact: true }).waitFor();
    expect(await rows.count()).toBe(MESSAGES);
    await page.clock.pauseAt(Date.now() + 1_000);

    /** Moves the clock on until the next refresh starts (the last one has ended). */
    let started = reads.first;
    const nextRefresh = () => runClockUntilARefresh(page, () => reads.first);
    /** The pages past the first read since the last call, each ended by the next refresh. */
    const laterSince = (() => {
      let seen = reads.later;
      return () => {
        const n = reads.later - seen;
        seen = reads.later;
        return n;
      };
    })();

    // Nothing new: two refreshes read the first page only.
    await nextRefresh();
    laterSince();
    await nextRefresh();
    await nextRefresh();
    expect(reads.first - started).toBeGreaterThanOrEqual(3);
    expect(laterSince()).toBe(0);

    // A new message comes in on top: the first page's last message is pushed past it, and is
    // still shown (a second page is read to reach the kept ones).
    // The last refresh may still be under way and meet the new message (its first page asked for
    // before the message and answered after it): it reads one page past the first too. Reading
    // every page, as before, would read two past the first at each refresh.
    laterSince();
    started = reads.first;
    const newest = await h.svix.message.create(appId, { eventType: "order.paid", payload: {} });
    while (!(await list.getByRole("link", { name: newest.id, exact: true }).count())) {
      await nextRefresh();
    }
    expect(laterSince()).toBeLessThanOrEqual(reads.first - started + 1);
    const shown = await list.locator("tbody tr a[data-key^='msg-']").allTextContents();
    expect(shown).toEqual([newest.id, ...[...ids].reverse()]);

    // 30 s on, a refresh reads the pages after the first again (the third refresh starts once
    // the second is done).
    await page.clock.runFor(30_000);
    laterSince();
    await nextRefresh();
    await nextRefresh();
    await nextRefresh();
    expect(laterSince()).toBeGreaterThanOrEqual(2);
    expect(await rows.count()).toBe(MESSAGES + 1);
  }, 120_000);
});
