/**
 * A message log paged on with "More" refreshes its first page, and a second one to reach the rows
 * kept below it. When more than a page of messages came in between two refreshes (a busy
 * application: 25 a second on a page of 50), those two pages did not reach the kept rows and the
 * whole list was read again from the top: the two pages just read were read a second time, so the
 * refresh cost two requests more than reading every page, at every refresh while the messages
 * kept coming. The two pages read go on to the rest of the list instead.
 */
import { describe, expect, it } from "vitest";
import { useDashboard } from "../support/browser.js";
import { countListReads, openOnTheTestsClock, runClockUntilARefresh } from "../support/console.js";

describe("operator console: a long list with more than a page of new rows", () => {
  const ui = useDashboard({ signedIn: true });

  it("reads each page of the list once at a refresh", async () => {
    const { h, page } = ui;
    const app = await h.svix.application.create({ name: "Busy" });
    const send = async (n: number) => {
      const ids: string[] = [];
      for (let i = 0; i < n; i++) {
        ids.unshift(
          (await h.svix.message.create(app.id, { eventType: "order.paid", payload: {} })).id,
        );
      }
      return ids;
    };
    const older = await send(130);
    const path = `/api/v1/app/${app.id}/msg`;
    const counted = countListReads(page, path);
    const reads = () => counted.first + counted.later;

    await openOnTheTestsClock(page, `${h.url}/ui/#/app/${app.id}/messages`);
    const list = page.getByRole("table", { name: "Newest messages first" });
    await list.getByRole("link", { name: older[0]!, exact: true }).waitFor();
    await page.clock.pauseAt(Date.now() + 1_000);
    await page.getByRole("button", { name: "More messages" }).click();
    await list.getByRole("link", { name: older[99]!, exact: true }).waitFor();

    // More than a page comes in; one refresh runs, and shows the two pages from the top.
    const newer = await send(60);
    const before = reads();
    await runClockUntilARefresh(page, reads);
    await list.getByRole("link", { name: newer[0]!, exact: true }).waitFor();
    const shown = await list.locator("tbody tr a[data-key^='msg-']").allTextContents();
    expect(shown).toEqual([...newer, ...older].slice(0, 100));
    expect(reads() - before).toBe(2);
  }, 120_000);
});
