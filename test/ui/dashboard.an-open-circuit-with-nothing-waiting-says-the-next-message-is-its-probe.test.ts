/**
 * An endpoint that answers 413 Payload Too Large (permanent by default) has each such message
 * given up on at once, and the answers still count toward its circuit: a run of them opens it
 * with nothing left waiting. The probe is a waiting delivery, so none went at the time the banner
 * gave: it said "Next probe in 5 min", then "Next probe now" for as long as no message came, while
 * the first message to come was sent as the probe at once. The banner now says that the next
 * message is the probe, sent once the probe's time has come, and gives the probe's time alone
 * again once a delivery waits for it, or while the probe is on its way (sending, not waiting).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, signIn, useDashboard } from "../support/browser.js";
import { anEndpoint, post } from "../support/dlq.js";

describe("an open circuit with nothing waiting for its probe", () => {
  const ui = useDashboard({
    // One failure opens the circuit; its probe is half an hour off, past the end of the test.
    hookline: { overrides: { breaker: { consecutiveFailures: 1, probeDelayMs: 30 * 60_000 } } },
    receiver: () => ({ status: 413, body: "too large" }),
  });
  let appId: string;
  let epId: string;

  beforeAll(async () => {
    const { h, rx } = ui;
    ({ appId, endpointId: epId } = await anEndpoint(h, rx.url("/hook"), {}));
    const msg = await post(h, appId, { n: 1 });
    await h.waitFor((e) => e.type === "delivery" && e.messageId === msg && e.state === "dead");
    await h.waitFor((e) => e.type === "circuit" && e.endpointId === epId);
  });

  const NEXT_IS_PROBE =
    /Next probe: the next message for this endpoint, as none waits now, sent once the probe's time comes: in\s(29|30)\smin \(\d+\/\d+\/\d{4}, [^()]+\)\./;

  it("says in the console that the next message is the probe", async () => {
    const { h, page } = ui;
    await signIn(page, h.url, h.token);
    await page.goto(`${h.url}/ui/#/app/${appId}/endpoint/${epId}`);
    const banner = page.getByTestId("circuit-banner");
    await expect.poll(() => banner.innerText(), { timeout: 15_000 }).toMatch(NEXT_IS_PROBE);
    expect(await banner.innerText()).toMatch(
      /Why: 1 consecutive failures within 60\ss; last: HTTP 413\./,
    );
  });

  it("says so in the portal, and the probe's time alone once a message waits for it", async () => {
    const { h, page } = ui;
    await openPortal(page, h, appId);
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${epId}`);
    const banner = page.getByTestId("circuit-banner");
    await expect.poll(() => banner.innerText(), { timeout: 15_000 }).toMatch(NEXT_IS_PROBE);
    // Held for the probe: the circuit is open.
    await post(h, appId, { n: 2 });
    // The counts are read every 10 s; the banner follows their read.
    await expect
      .poll(() => banner.innerText(), { timeout: 20_000 })
      .toMatch(/ Next probe in\s(29|30)\smin \(\d+\/\d+\/\d{4}, [^()]+\)\.$/);
    expect(await banner.innerText()).not.toContain("none waits");
  });
});

describe("an open circuit whose probe is on its way", () => {
  let requests = 0;
  const ui = useDashboard({
    // One failure opens the circuit; its probe goes a second later.
    hookline: { overrides: { breaker: { consecutiveFailures: 1, probeDelayMs: 1_000 } } },
    // The first answer opens it; the probe is held past the end of the test (hookline gives up
    // on it after its 15 s timeout).
    receiver: () =>
      ++requests === 1 ? { status: 413, body: "too large" } : { status: 200, delayMs: 60_000 },
  });

  it("does not say that nothing waits", async () => {
    const { h, rx, page } = ui;
    const { appId, endpointId } = await anEndpoint(h, rx.url("/hook"), {});
    const first = await post(h, appId, { n: 1 });
    await h.waitFor((e) => e.type === "delivery" && e.messageId === first && e.state === "dead");
    const probe = await post(h, appId, { n: 2 });
    await expect.poll(() => rx.requests.length, { timeout: 15_000 }).toBe(2);
    await openPortal(page, h, appId);
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${endpointId}`);
    const banner = page.getByTestId("circuit-banner");
    await expect.poll(() => banner.innerText(), { timeout: 10_000 }).toContain("Next probe");
    expect(await banner.innerText()).not.toContain("none waits");
    // Read while the probe was still out: no outcome of it yet.
    const attempted = h.events.some(
      (e) => e.type === "delivery" && e.messageId === probe && e.attempt !== null,
    );
    expect(attempted).toBe(false);
  });
});
