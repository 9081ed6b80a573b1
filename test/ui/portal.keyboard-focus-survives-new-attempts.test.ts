/**
 * A keyboard user reading an endpoint's attempts keeps their place when a new attempt arrives and
 * the table is redrawn: focus stays on the same attempt's link or "Request and response", or on
 * the response body or request headers unfolded beneath it, which take focus to be scrolled with
 * the keyboard. It used to fall back to the page (the controls had nothing to be found again by),
 * so on a busy endpoint focus was lost every two seconds; the unfolded texts lost it so until they
 * were keyed too. Their names ("Response body") were given as labels a screen reader does not read
 * on a `pre`; each is now a named group.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: focus on a live attempts table", () => {
  const ui = useDashboard();
  let appId: string;
  let epId: string;
  let firstMsg: string;

  const send = async () => {
    const { h } = ui;
    const msg = await h.svix.message.create(appId, { eventType: "order.paid", payload: {} });
    await h.waitFor((e) => e.type === "delivery" && e.messageId === msg.id && e.attempt !== null);
    return msg.id;
  };

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    epId = (await h.svix.endpoint.create(appId, { url: rx.url("/hook") })).id;
    firstMsg = await send();
    await openPortal(page, h, appId);
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${epId}`);
    await page.getByRole("link", { name: firstMsg }).waitFor();
  });

  const focused = () =>
    ui.page.evaluate<string>(
      // The focused control and the message of its row (the row's other text moves with time).
      "`${document.activeElement.tagName} ${document.activeElement.closest('tr')?.querySelector('a')?.textContent ?? ''}`",
    );

  const firstRow = () => ui.page.getByRole("row").filter({ hasText: firstMsg });
  /** The first attempt unfolded, then `name`, a text in it. */
  const unfolded = (name: string) => async () => {
    const details = firstRow().locator("details");
    if ((await details.getAttribute("open")) === null) {
      await firstRow().getByText("Request and response", { exact: true }).click();
    }
    return firstRow().getByLabel(name, { exact: true });
  };

  for (const [what, control] of [
    ["the attempt's message link", () => ui.page.getByRole("link", { name: firstMsg })],
    [
      "the attempt's Request and response",
      () => firstRow().getByText("Request and response", { exact: true }),
    ],
    ["the attempt's response body", unfolded("Response body")],
    ["the attempt's request headers", unfolded("Request headers")],
  ] as const) {
    it(`keeps focus on ${what}`, async () => {
      const rows = ui.page.getByRole("table", { name: "Recent attempts" }).locator("tbody tr");
      const before = await rows.count();
      await (await control()).focus();
      const was = await focused();
      expect(was).toContain(firstMsg);
      await send();
      await rows.nth(before).waitFor({ timeout: 10_000 });
      expect(await focused()).toBe(was);
    });
  }

  it("names the unfolded texts for a screen reader", async () => {
    // A `pre`'s own label is not read out: each is a group, named.
    await unfolded("Response body")();
    for (const name of ["Response body", "Request headers"]) {
      expect(await firstRow().getByRole("group", { name }).count()).toBe(1);
    }
  });
});
