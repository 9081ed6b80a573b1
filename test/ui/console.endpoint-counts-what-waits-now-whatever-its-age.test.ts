/**
 * The endpoint page counts the messages of the last 24 hours; during an outage longer than that
 * (a circuit open for days), the messages still waiting behind it are older than the window, and
 * the page said "Waiting 0" while they waited. It now also shows how many wait now whatever their
 * age (the stats' `pendingNow`), with why: the open circuit holds them back. The messages given up
 * on before the window are counted in no "Dead-lettered" of it either, and the count of 0 came
 * with no link: the page now always leads to the endpoint's open records, and says what each
 * counts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { anEndpoint, post } from "../support/dlq.js";
import { signIn, useDashboard } from "../support/browser.js";
import { FakeClock } from "../support/fake-clock.js";
import { deliveryOf } from "../support/hookline.js";

const HOUR = 60 * 60_000;
const clock = new FakeClock(Date.now());

describe("endpoint page: what waits now, however old", () => {
  const ui = useDashboard({
    // Two failures in a row open the circuit, whose probe is a week off.
    hookline: {
      overrides: { clock, breaker: { consecutiveFailures: 2, probeDelayMs: 7 * 24 * HOUR } },
    },
    receiver: () => ({ status: 500 }),
  });
  let path: string;

  beforeAll(async () => {
    const { h, rx } = ui;
    // One attempt each: the first two are dead-lettered, and open the circuit.
    const ep = await anEndpoint(h, rx.url("/down"));
    for (const n of [1, 2]) await h.waitFor(deliveryOf(await post(h, ep.appId, { n }), "dead"));
    await h.waitFor((e) => e.type === "circuit" && e.endpointId === ep.endpointId);
    for (const n of [3, 4, 5]) await post(h, ep.appId, { n });
    // A day and an hour on, the circuit still open: all three older than the window.
    clock.advance(25 * HOUR);
    path = `/app/${ep.appId}/endpoint/${ep.endpointId}`;
  });

  it("counts the messages waiting behind an open circuit for more than a day", async () => {
    const { h, page } = ui;
    await signIn(page, h.url, h.token);
    await page.goto(`${h.url}/ui/#${path}`);
    const list = page
      .getByRole("region", { name: "Messages of the last 24 hours" })
      .getByTestId("message-counts");
    await list.waitFor();
    const terms = await list.locator("dt").allInnerTexts();
    const values = await list.locator("dd").allInnerTexts();
    expect(Object.fromEntries(terms.map((t, i) => [t, values[i]]))).toEqual({
      Waiting: "0",
      "Waiting now, of any age": expect.stringMatching(
        /^3 · Circuit Open: held back after repeated failures; .*next probe in\s\d+\sd, at \d+\/\d+\/\d{4}, [^()]+\)/,
      ),
      "In flight": "0",
      Delivered: "0",
      "Dead-lettered": "0 · its open records in the dead-letter queue, of any age",
    });
    const hint = page
      .getByRole("region", { name: "Messages of the last 24 hours" })
      .locator(".hint");
    expect(await hint.innerText()).toMatch(
      /up to 10,000\. Dead-lettered counts the window's messages given up on here, .*resolved or abandoned, or none kept past the dead-letter depth cap\); the dead-letter queue lists the records open now, of any age\./,
    );
  });

  it("leads from a dead-lettered count of 0 to the records open from before the window", async () => {
    const { page } = ui;
    await page
      .getByRole("link", { name: "its open records in the dead-letter queue, of any age" })
      .click();
    await page.getByTestId("dlq-filter").waitFor();
    const records = page.getByRole("table", { name: "Open records, newest first" });
    // The header and the two records dead-lettered a day and more ago.
    await expect.poll(() => records.getByRole("row").count(), { timeout: 10_000 }).toBe(3);
  });
});
