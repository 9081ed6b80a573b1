/** For the operator console's tests: an endpoint's attempts, and lists refreshed on the test's clock. */
import type { Locator, Page } from "playwright-core";
import { expect } from "vitest";
import type { Dashboard } from "./browser.js";
import type { Behaviour } from "./receiver.js";

/** A receiver's answers where every other request fails: 200, 500, 200, 500, … */
export function everyOtherFails(): Behaviour {
  let n = 0;
  return () => (n++ % 2 === 0 ? { status: 200, body: "ok" } : { status: 500, body: "no" });
}

/**
 * On the signed-in console of `ui`, whose receiver answers {@link everyOtherFails}: an endpoint
 * at the receiver's /hooks that tries each message once, four messages sent to it (so two of them
 * end failed), and the endpoint's page open with the four attempts drawn. Resolves with the rows
 * of its "Recent attempts" table.
 */
export async function anEndpointPageWithFourAttempts(ui: Dashboard): Promise<Locator> {
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
  return rows;
}

/**
 * Opens `url` in `page` with the page's clock installed first: the page is the test's clock's, and
 * a list on it refreshes only when the test moves that clock on.
 */
export async function openOnTheTestsClock(page: Page, url: string): Promise<void> {
  await page.clock.install();
  await page.goto(url);
  await page.reload();
}

/**
 * Counts the page's reads of the list at `path` as they are asked: `first`, of its first page (no
 * iterator), and `later`, of the pages after it.
 */
export function countListReads(page: Page, path: string): { first: number; later: number } {
  const reads = { first: 0, later: 0 };
  page.on("request", (r) => {
    const url = new URL(r.url());
    if (url.pathname !== path) return;
    if (url.searchParams.has("iterator")) reads.later++;
    else reads.first++;
  });
  return reads;
}

/**
 * Moves the page's clock on, half a second at a time, until `reads()` has grown: until the next
 * refresh of a list has started (one starts only once the one before it has ended).
 */
export async function runClockUntilARefresh(page: Page, reads: () => number): Promise<void> {
  const before = reads();
  await expect
    .poll(async () => {
      if (reads() === before) await page.clock.runFor(500);
      return reads();
    })
    .toBeGreaterThan(before);
}
