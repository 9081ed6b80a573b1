/**
 * A retry due before its endpoint's probe is put off to the probe when it comes, or given up
 * there and then, unsent, when the probe falls past its retry window. Its message's page said
 * "next attempt in 30 min", at the probe, and the customer waiting for the probe found the
 * delivery given up half a minute later. It now says when hookline gives it up, and why, as the
 * delivery's record then does.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { firstDeliveryStanding, openPortal, useDashboard } from "../support/browser.js";
import { failTogether } from "../support/circuit.js";
import { GatedReceiver } from "../support/gated-receiver.js";

describe("customer portal: a retry its circuit holds past its window", () => {
  const ui = useDashboard({
    // Two failures open the circuit, and its probe is half an hour off.
    hookline: { overrides: { breaker: { consecutiveFailures: 2, probeDelayMs: 30 * 60_000 } } },
  });
  let rx: GatedReceiver;
  let appId: string;
  const waiting: string[] = [];

  beforeAll(async () => {
    const { h, page } = ui;
    rx = await GatedReceiver.start(503);
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    // One retry, 30 s on, within a minute of the first attempt: the probe comes after.
    const ep = await h.api<{ id: string }>("POST", `/api/v1/app/${appId}/endpoint`, {
      url: rx.url(),
      deliveryPolicy: { retry: { delays: [30], window: 60 } },
    });
    // The three fail at once: the circuit opens as their retries are being set. Those set before
    // it opened wait for their own time; the others are given up at once.
    const msgIds = await failTogether(h, rx, appId, ep.body.id, 3);
    for (const id of msgIds) {
      const e = await h.waitFor(
        (e) => e.type === "delivery" && e.messageId === id && ["pending", "dead"].includes(e.state),
      );
      if (e.type === "delivery" && e.state === "pending") waiting.push(id);
    }
    expect(waiting.length).toBeGreaterThan(0);
    await openPortal(page, h, appId);
  });
  afterAll(() => rx?.close());

  it("says hookline gives it up at its own time, not that it goes at the probe", async () => {
    const { h, page } = ui;
    const standing = firstDeliveryStanding(page);
    for (const id of waiting) {
      await page.goto(`${h.url}/portal/#/app/${appId}/message/${id}`);
      await standing.getByText(/Circuit Open/).waitFor({ timeout: 15_000 });
      expect(await standing.innerText()).toMatch(
        /^pending · 1\u00a0attempt failed: hookline gives it up (in\s\d+\ss|now)\s\(\d+\/\d+\/\d{4}, [^()]+\), unsent \(the next attempt was held past the retry window\) · Circuit Open Resend to this endpoint$/,
      );
    }
    // And so it does, when its retry comes.
    const id = waiting[0]!;
    await h.waitFor(
      (e) => e.type === "delivery" && e.messageId === id && e.state === "dead",
      45_000,
    );
    await page.goto(`${h.url}/portal/#/app/${appId}/message/${id}`);
    await standing.getByText(/hookline stopped trying/).waitFor({ timeout: 15_000 });
    expect(await standing.innerText()).toMatch(
      /^fail · hookline stopped trying: the next attempt was held past the retry window\. /,
    );
  }, 90_000);
});
