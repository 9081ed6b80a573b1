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
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { signIn, useDashboard } from "../support/browser.js";
import { post } from "../support/dlq.js";
import { deliveryOf } from "../support/hookline.js";

const ASKED_S = 0.037;
/** How much earlier the next attempt is once the wait is 0.037 s, not 120 s. */
const SHIFT_MS = 120_000 - ASKED_S * 1000;

/** The API's JSON with the Retry-After's 120 s read as 0.037 s, and the next attempt moved. */
function rewritten(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewritten);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === "retryAfter" && v && (v as { askedSeconds: number }).askedSeconds === 120) {
      out[k] = { askedSeconds: ASKED_S, waitSeconds: ASKED_S };
    } else if (k === "nextAttempt" && typeof v === "string") {
      out[k] = new Date(Date.parse(v) - SHIFT_MS).toISOString();
    } else {
      out[k] = rewritten(v);
    }
  }
  return out;
}

async function rewriteAnswers(page: Page): Promise<void> {
  await page.route(
    (url) => url.pathname.startsWith("/api/v1/"),
    async (route) => {
      const response = await route.fetch();
      const type = response.headers()["content-type"] ?? "";
      if (!type.includes("json")) return route.fulfill({ response });
      const body = JSON.stringify(rewritten(await response.json()));
      return route.fulfill({ response, body });
    },
  );
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

    await rewriteAnswers(page);
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
