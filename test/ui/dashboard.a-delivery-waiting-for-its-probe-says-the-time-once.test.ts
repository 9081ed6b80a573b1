/**
 * A delivery held back by its endpoint's open circuit goes at the probe, and its next attempt is
 * the probe's time. Its message's page said that time twice, once shown as its exact time too:
 * "next attempt in 1 h (…) · Circuit Open waits for the circuit's probe (in 1 h, at …)". It now
 * says it once, where the next attempt is, and the circuit says why: "next attempt in 1 h (…) ·
 * Circuit Open waits for the circuit's probe". A screen reader reads the time once as well. Both
 * views show the message's page alike.
 */
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, signIn, useDashboard } from "../support/browser.js";
import { BILLING_FAILS, heldForTheProbe } from "../support/circuit.js";

describe("the dashboard: a delivery waiting for its circuit's probe", () => {
  // Two failures in a row open the circuit, whose probe is an hour off: a third message waits.
  const ui = useDashboard(BILLING_FAILS);
  let appId: string;
  let held: string;

  beforeAll(async () => {
    const { h, rx } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    // Posted once the circuit is open: it waits for the probe.
    ({ held } = await heldForTheProbe(h, rx, appId));
  });

  /** The delivery's line on the message page at `base`: as shown, and as a screen reader reads it. */
  async function standing(page: Page, base: string): Promise<{ shown: string; read: string }> {
    await page.goto(`${base}#/app/${appId}/message/${held}`);
    const line = page.getByRole("region", { name: "Deliveries" }).getByRole("article").locator("p");
    await line.getByText(/waits for the circuit's probe/).waitFor({ timeout: 15_000 });
    const shown = await line.innerText();
    const read = (await line.textContent()) ?? "";
    return { shown, read };
  }

  const says = (text: string) => {
    expect(text).toMatch(
      /^pending · next attempt in\s(59\smin|1\sh)\s\(\d+\/\d+\/\d{4}, [^()]+\) · Circuit Open waits for the circuit's probe /,
    );
    // Once: neither the relative time nor a date comes again.
    expect(text.match(/in\s(59\smin|1\sh)/g), text).toHaveLength(1);
    expect(text.match(/\d+\/\d+\/\d{4}/g), text).toHaveLength(1);
  };

  it("says the probe's time once in the operator console", async () => {
    const { h, page } = ui;
    await signIn(page, h.url, h.token);
    const { shown, read } = await standing(page, `${h.url}/ui/`);
    says(shown);
    says(read);
  });

  it("says the probe's time once in the customer portal", async () => {
    const { h, page } = ui;
    await openPortal(page, h, appId);
    const { shown, read } = await standing(page, `${h.url}/portal/`);
    says(shown);
    says(read);
  });
});
