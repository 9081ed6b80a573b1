/**
 * A receiver's Retry-After given as a date a moment ahead asks for the time left until it, a wait
 * such as 0.037 s (`retryAfter` `{askedSeconds: 0.037, …}`). Shown to a tenth of a second, that
 * read "asked for 0 s … set it that long after this answer" on the unfolded attempt, "· Retry-After
 * 0 s" on its line, and "the wait the endpoint asked for (0 s, in its Retry-After)" beside the next
 * attempt, while `hookline dlq show` said "under 1s": only `Retry-After: 0` itself read as no wait.
 * Every place now takes a wait that reads as 0 for no wait, and says it in the same words.
 *
 * A date lands that close to hookline's clock only by chance, so the API's answers are rewritten on
 * their way to the page: the 120 s the receiver asked for becomes 0.037 s, and the next attempt it
 * set is moved to match.
 */
import { describe, expect, it } from "vitest";
import { rewriteApiAnswers, signIn, useDashboard } from "../support/browser.js";
import { post } from "../support/dlq.js";
import { deliveryOf } from "../support/hookline.js";

const ASKED_S = 0.037;
/** How much earlier the next attempt is once the wait is 0.037 s, not 120 s. */
const SHIFT_MS = 120_000 - ASKED_S * 1000;

/** The Retry-After's 120 s read as 0.037 s, and the next attempt it set moved to match. */
function asAMomentAhead(key: string, value: unknown): unknown {
  if (key === "retryAfter" && value && (value as { askedSeconds: number }).askedSeconds === 120) {
    return { askedSeconds: ASKED_S, waitSeconds: ASKED_S };
  }
  if (key === "nextAttempt" && typeof value === "string") {
    return new Date(Date.parse(value) - SHIFT_MS).toISOString();
  }
  return undefined;
}

describe("a Retry-After whose wait reads as 0", () => {
  const ui = useDashboard({
    receiver: (req) =>
      req.path === "/soon"
        ? { status: 503, headers: { "retry-after": "120" }, body: "busy" }
        : { status: 200 },
  });

  it("says the endpoint asked for no wait, on the attempt, its line and the next attempt", async () => {
    const { h, rx, page } = ui;
    const appId = (await h.svix.application.create({ name: "Acme" })).id;
    const ep = await h.svix.endpoint.create(appId, { url: rx.url("/soon") });
    const msgId = await post(h, appId, { invoice: 7 });
    await h.waitFor(deliveryOf(msgId, "pending", ep.id));

    await rewriteApiAnswers(page, asAMomentAhead);
    try {
      await signIn(page, h.url, h.token);
      await page.goto(`${h.url}/ui/#/app/${appId}/message/${msgId}`);
      const card = page.getByRole("region", { name: "Deliveries" }).getByRole("article").first();
      await card.getByText("Request and response").first().click({ timeout: 15_000 });
      const text = await card.innerText();
      expect(text).toMatch(
        /Retry-After\s*The endpoint asked for no wait before the next attempt, so hookline made it due as soon as this answer came\./,
      );
      expect(text).not.toMatch(/\b0\ss\b/);
      expect(text).not.toContain("resend may have");
      expect(text).toMatch(
        /next attempt now\b[^\n]*, as the endpoint asked for no wait \(Retry-After\)/,
      );
      expect(await card.getByRole("listitem").first().innerText()).toMatch(
        /\(retryable\) · Retry-After 0 \(no wait\)/,
      );

      await page.goto(`${h.url}/ui/#/app/${appId}/endpoint/${ep.id}`);
      const row = page
        .getByRole("table", { name: "Recent attempts" })
        .getByRole("row")
        .filter({ hasText: "busy" })
        .first();
      await row.waitFor({ timeout: 15_000 });
      expect(await row.innerText()).toMatch(/503 · Retry-After 0 \(no wait\)/);
    } finally {
      await page.unroute(() => true);
    }
  });
});
