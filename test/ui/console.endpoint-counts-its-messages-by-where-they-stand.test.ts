/**
 * The endpoint page, in the console and in the portal, counts the endpoint's messages of the last
 * 24 hours by where each stands there: waiting, in flight, delivered and dead-lettered, under a heading that names the window. In the console
 * the dead-lettered count leads to the dead-letter queue of that endpoint alone; the portal has
 * no such page and offers no link, but says how those messages are sent again. What waits now, of any age, is counted too, with why when the
 * open circuit holds it back. The counts are read at most every 10 s, not at each 2 s
 * refresh: counting reads every message of the window.
 */
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { ONE_ATTEMPT } from "../support/dlq.js";
import { openPortal, signIn, useDashboard } from "../support/browser.js";
import { deliveryOf } from "../support/hookline.js";

/** The counts as the page lists them: each term with the text of its description. */
async function countsOn(page: Page): Promise<Record<string, string>> {
  const region = page.getByRole("region", { name: "Messages of the last 24 hours" });
  const list = region.getByTestId("message-counts");
  await list.waitFor();
  const terms = await list.locator("dt").allInnerTexts();
  const values = await list.locator("dd").allInnerTexts();
  return Object.fromEntries(terms.map((term, i) => [term, values[i] ?? ""]));
}

describe("endpoint page: its messages counted by where they stand", () => {
  const ui = useDashboard({
    // Two failures in a row open the circuit, whose probe is far off: what comes next waits.
    hookline: { overrides: { breaker: { consecutiveFailures: 2, probeDelayMs: 30 * 60_000 } } },
    // A message that asks to fail is answered 500; with one attempt, it is dead-lettered.
    receiver: (req) => (JSON.parse(req.body.toString()).fail ? { status: 500 } : { status: 200 }),
  });
  let appId: string;
  let epId: string;

  beforeAll(async () => {
    const { h, rx } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    const endpoint = (path: string, type: string) =>
      h.api<{ id: string }>("POST", `/api/v1/app/${appId}/endpoint`, {
        url: rx.url(path),
        filterTypes: [type],
        deliveryPolicy: ONE_ATTEMPT,
      });
    epId = (await endpoint("/counted", "to.counted")).body.id;
    // Another endpoint's dead letter, which the counted endpoint's queue must leave out.
    const other = (await endpoint("/other", "to.other")).body.id;
    const send = async (eventType: string, fail: boolean) => {
      const msg = await h.svix.message.create(appId, { eventType, payload: { fail } });
      return msg.id;
    };
    for (const fail of [false, false, false]) {
      await h.waitFor(deliveryOf(await send("to.counted", fail), "succeeded"));
    }
    await h.waitFor(deliveryOf(await send("to.other", true), "dead"));
    for (const fail of [true, true]) {
      await h.waitFor(deliveryOf(await send("to.counted", fail), "dead"));
    }
    await h.waitFor((e) => e.type === "circuit" && e.endpointId === epId);
    // Held by the open circuit until its probe.
    await send("to.counted", false);
    expect(other).not.toBe(epId);
  });

  it("shows the counts in the console, reading them at most every 10 s", async () => {
    const { h, page } = ui;
    await signIn(page, h.url, h.token);
    const asked: string[] = [];
    page.on("request", (r) => {
      if (/\/endpoint\/[^/]+\/stats($|\?)/.test(r.url())) asked.push(r.url());
    });
    await page.goto(`${h.url}/ui/#/app/${appId}/endpoint/${epId}`);
    await page.getByRole("heading", { name: "Messages of the last 24 hours" }).waitFor();
    const counts = await countsOn(page);
    expect(counts).toEqual({
      Waiting: "1",
      "Waiting now, of any age": expect.stringMatching(
        /^1 · Circuit Open: held back after repeated failures; .*next probe in\s\d+\smin/,
      ),
      "In flight": "0",
      Delivered: "3",
      "Dead-lettered": "2 · its open records in the dead-letter queue, of any age",
    });
    // Three of the page's 2 s refreshes go by with no new read of the counts.
    const first = asked.length;
    await page.waitForTimeout(6_500);
    expect(first).toBe(1);
    expect(asked).toHaveLength(1);
  });

  it("leads from the dead-lettered count to that endpoint's dead letters alone", async () => {
    const { page } = ui;
    await page
      .getByRole("link", { name: "its open records in the dead-letter queue, of any age" })
      .click();
    await page.getByRole("heading", { name: "Dead letters" }).waitFor();
    await page.getByTestId("dlq-filter").waitFor();
    const records = page
      .getByRole("region", { name: "Open records", exact: true })
      .getByRole("row");
    // The header and the two records.
    await expect.poll(() => records.count(), { timeout: 10_000 }).toBe(3);
    const text = await page.getByRole("region", { name: "Open records", exact: true }).innerText();
    expect(text).not.toMatch(/\/other/);
    expect(
      await page.getByRole("region", { name: /Open records by endpoint/ }).innerText(),
    ).not.toMatch(/\/other/);
  });

  it("shows the same counts in the portal, with no link to a queue it has not", async () => {
    const { h, page } = ui;
    await openPortal(page, h, appId);
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${epId}`);
    const counts = await countsOn(page);
    expect(counts).toMatchObject({ "In flight": "0", Delivered: "3" });
    expect(counts["Dead-lettered"]).toMatch(/^2 · hookline stopped trying these: /);
    expect(counts["Waiting now, of any age"]).toMatch(
      /^1 · Circuit Open: held back after repeated failures/,
    );
  });
});
