/**
 * Small things a reader meets on every page: each page's window title said only "hookline", so
 * tabs and the history could not be told apart; and a circuit's banner read "Reopened 1 time(s)
 * in a row". Pages are now titled after what they show ("Endpoint ep_… · hookline"), and the
 * banner says "1 time", "2 times".
 */
import { beforeAll, describe, expect, it } from "vitest";
import { signIn, useDashboard } from "../support/browser.js";

describe("operator console: titles and counts", () => {
  const ui = useDashboard({
    hookline: {
      // Open at the first failure, probe after a moment: a failing probe reopens the circuit.
      overrides: {
        breaker: { consecutiveFailures: 1, probeDelayMs: 300, maxProbeDelayMs: 300 },
      },
    },
    receiver: () => ({ status: 500, body: "down" }),
  });
  let appId: string;
  let epId: string;
  let msgId: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    epId = (await h.svix.endpoint.create(appId, { url: rx.url("/hook") })).id;
    msgId = (await h.svix.message.create(appId, { eventType: "order.paid", payload: {} })).id;
    await h.waitFor((e) => e.type === "delivery" && e.messageId === msgId);
    await signIn(page, h.url, h.token);
  });

  it("titles each page after what it shows", async () => {
    const { h, page } = ui;
    expect(await page.title()).toBe("Applications · hookline");
    for (const [hash, title] of [
      [`/app/${appId}/endpoints`, "Endpoints of Acme · hookline"],
      [`/app/${appId}/endpoint/${epId}`, `Endpoint ${epId} · hookline`],
      [`/app/${appId}/messages`, "Messages of Acme · hookline"],
      [`/app/${appId}/message/${msgId}`, `Message ${msgId} · hookline`],
      ["/dlq", "Dead letters · hookline"],
      ["/nowhere", "Not found · hookline"],
    ]) {
      await page.goto(`${h.url}/ui/#${hash}`);
      await expect.poll(() => page.title()).toBe(title);
    }
  });

  it("says how often the circuit reopened in words", async () => {
    const { h, page } = ui;
    // Something for the probes to send, which fail and reopen the circuit.
    for (const i of [1, 2, 3]) {
      await h.svix.message.create(appId, { eventType: "order.paid", payload: { i } });
    }
    await page.goto(`${h.url}/ui/#/app/${appId}/endpoint/${epId}`);
    const banner = page.getByTestId("circuit-banner");
    // Each failed probe reopens the circuit; how many times by the moment the page draws it is
    // the host's timing, so the test reads the count the banner shows and checks its word.
    await banner.getByText(/Reopened \d+\u00a0times? in a row\./).waitFor({ timeout: 20_000 });
    const text = (await banner.textContent()) ?? "";
    const [, count, word] = /Reopened (\d+)\u00a0(times?) in a row\./.exec(text)!;
    expect(word).toBe(Number(count) === 1 ? "time" : "times");
    expect(text).not.toContain("time(s)");
  });
});
