/**
 * An attempt's line shows the start of the response (its first 120 characters): cut in the middle
 * of an emoji it showed half of it ("�") and, since nothing marked the cut, looked like the whole
 * answer. It ends on a whole character now, with "…" when the response goes on.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";
import { deliveryOf } from "../support/hookline.js";

// The emoji takes the 120th and 121st UTF-16 units.
const BODY = `${"a".repeat(119)}😀 and the rest`;

describe("customer portal: the start of a response", () => {
  const ui = useDashboard({ receiver: () => ({ status: 200, body: BODY }) });
  let appId: string;
  let epId: string;
  let msgId: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    epId = (await h.svix.endpoint.create(appId, { url: rx.url("/hook") })).id;
    msgId = (await h.svix.message.create(appId, { eventType: "order.paid", payload: {} })).id;
    await h.waitFor(deliveryOf(msgId, "succeeded", epId));
    await openPortal(page, h, appId);
  });

  /** The snippet's text, as the page holds it (a lone surrogate kept as it is). */
  const snippet = () =>
    ui.page
      .locator("code.snippet")
      .first()
      .evaluate((el) => {
        const text = el.textContent ?? "";
        return { text, half: /[\uD800-\uDFFF]/u.test(text) };
      });

  it("ends on a whole character and marks the cut, on the endpoint and on the message", async () => {
    const { h, page } = ui;
    for (const at of [`endpoint/${epId}`, `message/${msgId}`]) {
      await page.goto(`${h.url}/portal/#/app/${appId}/${at}`);
      await page.locator("code.snippet").first().waitFor({ timeout: 10_000 });
      const { text, half } = await snippet();
      expect(half).toBe(false);
      expect(text.trim()).toBe(`${"a".repeat(119)}…`);
    }
    // The whole response is still there, unfolded.
    await page.getByText("Request and response").first().click();
    expect(await page.getByLabel("Response body").innerText()).toBe(BODY);
  });
});
