/**
 * The open dead letters paged on with "More" refresh their first page and keep the records below
 * it as read. When records were resolved across the end of the first page (an operator working
 * through them with the API), the first page reached into the kept records, and the refresh
 * joined to it every kept record it did not hold: the resolved ones among them were shown below
 * newer records, out of order, as if still open, until the list was read again 30 s later. The
 * kept records go on from the one the first page ends on.
 */
import { describe, expect, it } from "vitest";
import { useDashboard } from "../support/browser.js";
import { countListReads, openOnTheTestsClock, runClockUntilARefresh } from "../support/console.js";
import { anEndpoint, deadLetters, PATIENT_BREAKER } from "../support/dlq.js";

describe("operator console: dead letters resolved across the first page", () => {
  const ui = useDashboard({
    signedIn: true,
    hookline: { overrides: { breaker: PATIENT_BREAKER } },
    receiver: () => ({ status: 400, body: "bad" }),
  });

  it("leave the list at the next refresh, and the rest stays in order", async () => {
    const { h, rx, page } = ui;
    const ep = await anEndpoint(h, rx.url("/orders"));
    await deadLetters(h, ep, 110);
    const newestFirst = await h.api<{ data: { id: string }[] }>(
      "GET",
      "/api/v1/dlq?state=open,replaying&limit=250&order=descending",
    );
    const ids = newestFirst.body.data.map((r) => r.id);
    expect(ids).toHaveLength(110);
    const reads = countListReads(page, "/api/v1/dlq");

    await openOnTheTestsClock(page, `${h.url}/ui/#/dlq`);
    const list = page.getByRole("table", { name: "Open records, newest first" });
    const shownIds = () => list.locator("tbody tr a[data-key^='dlq-dlq_']").allTextContents();
    await list.getByRole("link", { name: ids[0]!, exact: true }).waitFor();
    await page.clock.pauseAt(Date.now() + 1_000);
    await page.getByRole("button", { name: "More records" }).click();
    await expect.poll(shownIds, { timeout: 15_000 }).toEqual(ids.slice(0, 100));

    // The 41st to the 60th newest are resolved: ten from the first page, ten kept below it.
    for (const id of ids.slice(40, 60)) {
      const res = await h.api("POST", `/api/v1/dlq/${id}/resolve`, { note: "handled by hand" });
      expect(res.status).toBe(200);
    }
    await runClockUntilARefresh(page, () => reads.first);
    await expect
      .poll(shownIds, { timeout: 15_000 })
      .toEqual([...ids.slice(0, 40), ...ids.slice(60, 100)]);
    expect(await page.getByRole("button", { name: "More records" }).count()).toBe(1);
  }, 120_000);
});
