/**
 * A receiver's Retry-After of 309 digits or more is kept as the largest number JavaScript has
 * (`askedSeconds` 1.8e305), and one of 20 digits is already absurd: hookline ignores either, as
 * any wait past 24 h, and the dashboard said so with the number, "· Retry-After 4.99e+301 h ignored
 * (over 24 h)". A wait past a year now reads "more than a year" unfolded, and its line's mark gives
 * no number.
 *
 * The API's answers are rewritten on their way to the page: the 48 h the receiver asked for
 * becomes Number.MAX_VALUE milliseconds.
 */
import { describe, expect, it } from "vitest";
import { rewriteApiAnswers, signIn, useDashboard } from "../support/browser.js";
import { post } from "../support/dlq.js";
import { deliveryOf } from "../support/hookline.js";

/** The ignored 48 h read as the largest wait hookline keeps. */
function asPastAYear(key: string, value: unknown): unknown {
  return key === "retryAfterIgnored" &&
    (value as { askedSeconds?: number } | null)?.askedSeconds === 172_800
    ? { reason: "too-long", askedSeconds: Number.MAX_VALUE / 1000 }
    : undefined;
}

describe("a Retry-After ignored for asking for more than a year", () => {
  const ui = useDashboard({
    receiver: () => ({ status: 503, headers: { "retry-after": String(172_800) }, body: "busy" }),
  });

  it("says so without the number, unfolded and on the attempt's line", async () => {
    const { h, rx, page } = ui;
    const appId = (await h.svix.application.create({ name: "Acme" })).id;
    const ep = await h.svix.endpoint.create(appId, { url: rx.url("/far") });
    const msgId = await post(h, appId, { invoice: 7 });
    await h.waitFor(deliveryOf(msgId, "pending", ep.id));

    await rewriteApiAnswers(page, asPastAYear);
    try {
      await signIn(page, h.url, h.token);
      await page.goto(`${h.url}/ui/#/app/${appId}/message/${msgId}`);
      const card = page.getByRole("region", { name: "Deliveries" }).getByRole("article").first();
      await card.getByText("Request and response").first().click({ timeout: 15_000 });
      const text = await card.innerText();
      expect(text).toMatch(
        /Retry-After\s*The endpoint asked for more than a year before the next attempt; hookline ignores a wait over 24\sh, so the retry schedule set the next attempt\./,
      );
      expect(text).not.toMatch(/e\+\d/);
      expect(await card.getByRole("listitem").first().innerText()).toMatch(
        /\(retryable\) · Retry-After ignored \(over 24\sh\)/,
      );
    } finally {
      await page.unroute(() => true);
    }
  });
});
