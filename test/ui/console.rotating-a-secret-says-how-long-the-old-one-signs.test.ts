/**
 * Rotating an endpoint's secret from its page asks first, saying what happens to the old secret
 * as this hookline is set up: it keeps signing for HOOKLINE_SECRET_GRACE_SECONDS, or with 0 stops
 * at once. The question spoke of a grace period whatever the setting, so with 0 a receiver's owner
 * was told the old secret still worked when it had already stopped.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { signIn, useDashboard, type Dashboard } from "../support/browser.js";
import { anEndpoint } from "../support/dlq.js";

/** Clicks Rotate secret, cancels the question, and answers what it said. */
async function rotateQuestion(ui: Dashboard): Promise<string> {
  const { h, rx, page } = ui;
  const ep = await anEndpoint(h, rx.url("/hook"));
  await signIn(page, h.url, h.token);
  await page.goto(`${h.url}/ui/#/app/${ep.appId}/endpoint/${ep.endpointId}`);
  return asked(page);
}

async function asked(page: Page): Promise<string> {
  await page.getByRole("button", { name: "Rotate secret" }).click();
  const question = page.getByRole("dialog", { name: "Rotate the signing secret?" });
  const said = await question.innerText();
  await question.getByRole("button", { name: "Cancel" }).click();
  await question.waitFor({ state: "detached" });
  return said;
}

describe("operator console: rotating a secret with no grace period", () => {
  const ui = useDashboard({ hookline: { env: { HOOKLINE_SECRET_GRACE_SECONDS: "0" } } });

  it("says the old secret stops signing at once", async () => {
    const question = await rotateQuestion(ui);
    expect(question).toContain("stops signing at once");
    expect(question).not.toContain("grace");
  });
});

describe("operator console: rotating a secret with the default grace period", () => {
  const ui = useDashboard();

  it("says how long the old secret keeps signing", async () => {
    expect(await rotateQuestion(ui)).toContain("keeps signing for 24\u00a0h");
  });
});
