/**
 * An open circuit sends nothing before its probe. Deliveries whose failures came in together with
 * the one that opened it keep the retry time set just before (30 s on) until it comes and they are
 * put off to the probe, and their message's page said both: "next attempt in 28 s" and "waits for
 * the circuit's probe (in 30 min)". The customer was told of an attempt that would not be made.
 * The next attempt shown is now the probe's time when that is later, and said once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { firstDeliveryStanding, openPortal, useDashboard } from "../support/browser.js";
import { failTogether } from "../support/circuit.js";
import { GatedReceiver } from "../support/gated-receiver.js";

describe("customer portal: a retry due before its endpoint's probe", () => {
  const ui = useDashboard({
    // Two failures open the circuit, and its probe is half an hour off.
    hookline: { overrides: { breaker: { consecutiveFailures: 2, probeDelayMs: 30 * 60_000 } } },
  });
  let rx: GatedReceiver;
  let appId: string;
  let msgIds: string[];

  beforeAll(async () => {
    const { h, page } = ui;
    rx = await GatedReceiver.start(503);
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    const ep = await h.svix.endpoint.create(appId, { url: rx.url() });
    msgIds = await failTogether(h, rx, appId, ep.id, 3);
    for (const id of msgIds) {
      await h.waitFor((e) => e.type === "delivery" && e.messageId === id && e.state === "pending");
    }
    await openPortal(page, h, appId);
  });
  afterAll(() => rx?.close());

  it("says each one's next attempt is at the probe", async () => {
    const { h, page } = ui;
    for (const id of msgIds) {
      await page.goto(`${h.url}/portal/#/app/${appId}/message/${id}`);
      const standing = firstDeliveryStanding(page);
      await standing.getByText(/waits for the circuit's probe/).waitFor({ timeout: 15_000 });
      const text = await standing.innerText();
      // Each relative time with its exact one, which a screen reader reads with it.
      expect(text).toMatch(
        /^pending · 1\u00a0attempt failed, retrying: next attempt in\s(29|30)\smin\s\(\d+\/\d+\/\d{4}, [^()]+\) · /,
      );
      // The probe's time is the next attempt's, said once (not again after "probe").
      expect(text).toMatch(/ · Circuit Open waits for the circuit's probe /);
      expect(text).not.toMatch(/probe \(/);
    }
  });
});
