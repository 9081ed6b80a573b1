/**
 * What someone pasting from the dashboard gets, read from the clipboard after a real copy. A
 * relative time comes with its exact time, in parentheses after a space, whether or not it is in
 * sight ("5 s ago (12/7/2026, 7:10:00 AM UTC)"): pasted into a ticket, "5 s ago" alone would soon
 * be wrong. A table's row comes as one line, its cells apart by tabs, as a spreadsheet takes it
 * and as its header row already came; each cell came on a line of its own, a row of five values
 * pasted as five lines.
 */
import type { Locator, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { useDashboard } from "../support/browser.js";

/** `page`'s text of `what`: selected whole, copied with Ctrl+C, read from the clipboard. */
async function copied(page: Page, what: Locator): Promise<string> {
  await page.evaluate("navigator.clipboard.writeText('')");
  await what.evaluate((el) => el.ownerDocument.getSelection()!.selectAllChildren(el));
  await page.keyboard.press("Control+c");
  return page.evaluate<string>("navigator.clipboard.readText()");
}

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("the dashboard: text copied from it", () => {
  const ui = useDashboard({ signedIn: true });
  let appId: string;
  let epId: string;
  let msgId: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    epId = (await h.svix.endpoint.create(appId, { url: rx.url("/hook") })).id;
    msgId = (await h.svix.message.create(appId, { eventType: "order.paid", payload: { a: 1 } })).id;
    await h.waitFor(
      (e) => e.type === "delivery" && e.messageId === msgId && e.state === "succeeded",
    );
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: h.url });
  });

  /**
   * "N s ago (its exact time)", as relative time `when` says it in the page, its spaces ordinary
   * ones: the page joins a relative time's words with no-break spaces, which a copy gives as
   * spaces.
   */
  const agoWithExact = async (page: Page, when: Locator): Promise<string> => {
    const exact = await page.evaluate<string>(
      `new Date(${JSON.stringify(await when.getAttribute("datetime"))}).toLocaleString(undefined, { timeZoneName: "short" })`,
    );
    return `\\d+ (s|min) ago \\(${escaped(exact)}\\)`;
  };

  it("gives a list's row as one line, its time with its exact time", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/ui/#/app/${appId}/messages`);
    const row = page
      .getByRole("table", { name: "Newest messages first" })
      .locator("tbody tr")
      .filter({ hasText: msgId });
    const when = row.locator("time");
    await row.getByText("success").waitFor();
    const ago = await agoWithExact(page, when);
    expect(await copied(page, row.locator("td").first())).toMatch(new RegExp(`^${ago}$`));
    const line = new RegExp(`^${ago}\\torder\\.paid\\t${msgId}\\tsuccess\\t—\\n?$`);
    expect(await copied(page, row)).toMatch(line);
    // The same with the keyboard in the row, its exact time in sight.
    await page.getByRole("link", { name: msgId }).focus();
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Tab");
    expect((await when.locator(".exact").boundingBox())!.width).toBeGreaterThan(50);
    expect(await copied(page, row)).toMatch(line);
  });

  it("gives an endpoint's last success with its exact time", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/ui/#/app/${appId}/endpoint/${epId}`);
    const fact = page.locator(`dt:text-is("Last success") + dd`);
    const when = fact.locator("time");
    await when.waitFor();
    expect(await copied(page, fact)).toMatch(new RegExp(`^${await agoWithExact(page, when)}\\n?$`));
  });

  it("gives a row's time with its exact time at phone width, the table shown as cards", async () => {
    const { h, page } = ui;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${h.url}/ui/#/app/${appId}/messages`);
      const cell = page.locator("tbody tr").filter({ hasText: msgId }).locator("td").first();
      const when = cell.locator("time");
      await when.waitFor();
      expect(await copied(page, cell)).toMatch(
        new RegExp(`^${await agoWithExact(page, when)}\\n?$`),
      );
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });
});
