/**
 * An attempt's result named its transport error in words ("connection refused (ECONNREFUSED …)"),
 * but the reasons hookline writes itself, shown on the same pages, still named its class: the
 * circuit banner said "Why: 1 consecutive failures within 60 s; last: connection_refused (…)",
 * a message given up on "hookline stopped trying: the one attempt failed; last:
 * connection_refused (…)", and the dead-letter pages the same. A timeout's detail said "no answer
 * within 2000 ms" where every other duration on the dashboard reads in seconds. Each now reads as
 * the attempt's result does, its detail kept, and a timeout's in seconds.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Locator } from "playwright-core";
import { firstDeliveryStanding, openPortal, signIn, useDashboard } from "../support/browser.js";
import { anEndpoint, ONE_ATTEMPT, post, type TestEndpoint } from "../support/dlq.js";
import { closedPort } from "../support/receiver.js";

const REFUSED = "last: connection refused (ECONNREFUSED";
const TIMED_OUT = "last: timed out (no answer within 2.0\u00a0s)";

/** An element's text once it holds `needle`, as the page's next update may bring it. */
async function textWith(locator: Locator, needle: string): Promise<string> {
  await expect.poll(async () => (await locator.textContent()) ?? "").toContain(needle);
  return (await locator.textContent()) ?? "";
}

describe("hookline's reasons name a failed connection in words", () => {
  const ui = useDashboard({
    // One failure opens an endpoint's circuit, whose probe is half an hour off.
    hookline: { overrides: { breaker: { consecutiveFailures: 1, probeDelayMs: 30 * 60_000 } } },
    // Held past the slow endpoint's deadline of 2 s.
    receiver: () => ({ status: 200, delayMs: 5_000 }),
  });
  let refused: TestEndpoint;
  let slow: TestEndpoint;
  const msgs: Record<string, string> = {};

  beforeAll(async () => {
    const { h, rx } = ui;
    refused = await anEndpoint(h, `http://127.0.0.1:${await closedPort()}/hook`);
    slow = await anEndpoint(h, rx.url("/slow"), { ...ONE_ATTEMPT, timeoutMs: 2000 });
    const ended = [refused, slow].flatMap((ep) => [
      h.waitFor((e) => e.type === "delivery" && e.endpointId === ep.endpointId),
      h.waitFor((e) => e.type === "circuit" && e.endpointId === ep.endpointId),
    ]);
    msgs.refused = await post(h, refused.appId, { n: 1 });
    msgs.slow = await post(h, slow.appId, { n: 2 });
    await Promise.all(ended);
  });

  it("in the portal: the circuit banner and the message given up on", async () => {
    const { h, page } = ui;
    for (const [ep, msg, said] of [
      [refused, msgs.refused!, REFUSED],
      [slow, msgs.slow!, TIMED_OUT],
    ] as const) {
      await openPortal(page, h, ep.appId);
      await page.goto(`${h.url}/portal/#/app/${ep.appId}/endpoint/${ep.endpointId}`);
      const banner = await textWith(page.getByTestId("circuit-banner"), "Why:");
      expect(banner).toContain(said);

      await page.goto(`${h.url}/portal/#/app/${ep.appId}/message/${msg}`);
      const standing = await textWith(firstDeliveryStanding(page), "hookline stopped trying");
      expect(standing).toContain(`hookline stopped trying: the one attempt failed; ${said}`);
      for (const text of [banner, standing]) {
        expect(text).not.toMatch(/connection_refused|timeout|\d ms/);
      }
    }
    // The attempt's own result reads in seconds too.
    const timeline = page.getByRole("region", { name: "Deliveries" });
    expect(await textWith(timeline.getByRole("listitem").first(), "timed out")).toContain(
      "timed out (no answer within 2.0\u00a0s)",
    );
  });

  it("in the console: the message, and its dead-letter record listed and in full", async () => {
    const { h, browser } = ui;
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      await signIn(page, h.url, h.token);
      await page.goto(`${h.url}/ui/#/app/${refused.appId}/message/${msgs.refused}`);
      const standing = firstDeliveryStanding(page);
      await standing.getByRole("link", { name: /^dlq_/ }).waitFor();
      expect(await standing.textContent()).toContain(
        `hookline stopped trying: the one attempt failed; ${REFUSED}`,
      );
      expect(await standing.textContent()).not.toContain("connection_refused");

      await page.goto(`${h.url}/ui/#/dlq`);
      const records = page.getByRole("table", { name: "Open records, newest first" });
      const rows = await textWith(records, "timed out");
      expect(rows).toContain(`exhausted: the one attempt failed; ${REFUSED}`);
      expect(rows).toContain(`exhausted: the one attempt failed; ${TIMED_OUT}`);
      expect(rows).not.toMatch(/connection_refused|timeout|\d ms/);

      await records
        .getByRole("row")
        .filter({ hasText: "connection refused" })
        .getByRole("link")
        .first()
        .click();
      const record = page.getByRole("region", { name: "Record" });
      const full = await textWith(record, "Failure");
      expect(full).toContain(`exhausted: the one attempt failed; ${REFUSED}`);
      // The history's entry of its dead-lettering says the same.
      const history = await textWith(page.getByRole("table", { name: "History" }), "dead lettered");
      expect(history).toContain(REFUSED);
      expect(`${full}${history}`).not.toContain("connection_refused");
    } finally {
      await page.close();
    }
  });
});
