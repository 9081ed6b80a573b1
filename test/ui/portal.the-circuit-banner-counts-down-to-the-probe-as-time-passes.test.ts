/**
 * The circuit banner said why the circuit opened in the breaker's words, written as it opened,
 * and they ended with when it probes next from then: "probe failed: HTTP 500; next probe in 1 h".
 * Twenty minutes on the banner still said "next probe in 1 h" beside its own, kept current,
 * "Next probe in 40 min". The banner now says when the next probe runs once, from the probe's
 * time, and still says when the receiver's Retry-After set it. The breaker writes no wait in its
 * reason any more; a circuit an older hookline stored keeps one until it next changes, and its
 * banner reads as a new one's.
 */
import type { Locator } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: the circuit banner as time passes", () => {
  const ui = useDashboard({
    // One failure opens a circuit, whose probe is half an hour off; a failed probe doubles it.
    hookline: { overrides: { breaker: { consecutiveFailures: 1, probeDelayMs: 30 * 60_000 } } },
    receiver: (req) =>
      req.path === "/maintenance"
        ? { status: 503, headers: { "retry-after": "3600" } }
        : { status: 500 },
  });
  let appId: string;
  let reopened: string;
  let asked: string;
  let older: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    const endpoint = async (path: string, type: string) =>
      (await h.svix.endpoint.create(appId, { url: rx.url(path), filterTypes: [type] })).id;
    reopened = await endpoint("/down", "to.reopened");
    asked = await endpoint("/maintenance", "to.asked");
    await h.svix.message.create(appId, { eventType: "to.reopened", payload: {} });
    await h.svix.message.create(appId, { eventType: "to.asked", payload: {} });
    for (const id of [reopened, asked]) {
      await h.waitFor((e) => e.type === "circuit" && e.endpointId === id);
    }
    // Written due at the probe, as the circuit is open: a changed URL brings the two forward.
    await h.svix.message.create(appId, { eventType: "to.reopened", payload: {} });
    // The changed URL is probed at once; the probe fails, and the next one is an hour off.
    await h.svix.endpoint.patch(appId, reopened, { url: rx.url("/still-down") });
    await h.waitFor(
      (e) => e.type === "circuit" && e.endpointId === reopened && e.transition.from === "open",
    );
    // Stored by an older hookline, which wrote the wait it set in the reason: nothing sent to it
    // since, so the engine holds no circuit of its own for it, and the stored one is shown.
    older = await endpoint("/older", "to.older");
    const at = Date.now();
    const reason = "probe failed: HTTP 503; next probe in 1 h, as its Retry-After asked";
    await h.hookline.store.saveCircuit(
      older,
      { state: "open", since: at, reason, nextProbeAt: at + 3_600_000, reopenCount: 1 },
      { from: "open", to: "open", at, reason },
    );
    // The browser's clock is the test's: moving it on is time passing for the page alone.
    await page.clock.install();
    await openPortal(page, h, appId);
  });

  /** The endpoint's banner, once it shows, and the minutes it says the next probe is off. */
  const bannerOf = async (endpointId: string): Promise<[Locator, number]> => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${endpointId}`);
    const banner = page.getByTestId("circuit-banner");
    // With nothing waiting for it (the circuit an older hookline stored), the probe is the next
    // message to come, sent once its time comes, which the banner counts down to all the same.
    const probe = /Next probe(?:: the next message for this endpoint, [^:]+:)? in\s(\d+)\s(h|min)/;
    await banner.getByText(probe).waitFor({ timeout: 15_000 });
    const [, n, unit] = probe.exec(await banner.innerText()) ?? [];
    return [banner, Number(n) * (unit === "h" ? 60 : 1)];
  };

  it("says once when a reopened circuit probes next, counting down", async () => {
    const [banner, minutes] = await bannerOf(reopened);
    expect(minutes).toBe(60);
    expect(await banner.innerText()).toMatch(/Why: probe failed: HTTP 500\. Since/);
    await ui.page.clock.fastForward("20:00");
    await banner.getByText(/Next probe in\s40\smin/).waitFor({ timeout: 10_000 });
    expect(await banner.innerText()).not.toMatch(/in\s1\sh/);
  });

  it("says the receiver's Retry-After set the probe, counting down to it", async () => {
    // The page's clock may have been moved on 20 min already, by the test before.
    const [banner, minutes] = await bannerOf(asked);
    expect([60, 40]).toContain(minutes);
    await ui.page.clock.fastForward("10:00");
    await banner.getByText(`Next probe in ${minutes - 10} min`).waitFor({ timeout: 10_000 });
    const text = await banner.innerText();
    expect(text).not.toMatch(/in\s1\sh/);
    expect(text).toMatch(
      /Why: 1 consecutive failures within 60\u00a0s; last: HTTP 503; the receiver's Retry-After put the probe off\. Since/,
    );
  });

  it("says so of a circuit an older hookline stored with the wait it set then", async () => {
    // The page's clock may have been moved on 30 min already, by the tests before.
    const [banner, minutes] = await bannerOf(older);
    expect([60, 40, 30]).toContain(minutes);
    const text = await banner.innerText();
    expect(text).not.toMatch(/in\s1\sh/);
    expect(text).toMatch(
      /Why: probe failed: HTTP 503; the receiver's Retry-After put the probe off\. Since/,
    );
  });
});
