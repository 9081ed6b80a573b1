/**
 * The console's dead-letter page shows the summary of open records (its groups, and the URL each
 * record's endpoint is named by) in two regions that refresh together every 2 s. Each read the
 * summary, which groups every open record, for itself; one read now serves both.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { signIn, useDashboard } from "../support/browser.js";
import { anEndpoint, deadLetters, PATIENT_BREAKER } from "../support/dlq.js";

describe("operator console: the dead-letter page left open", () => {
  const ui = useDashboard({
    hookline: { overrides: { breaker: PATIENT_BREAKER } },
    receiver: () => ({ status: 400, body: "bad" }),
  });

  beforeAll(async () => {
    const { h, rx, page } = ui;
    await deadLetters(h, await anEndpoint(h, rx.url("/orders")), 3);
    await signIn(page, h.url, h.token);
  });

  it("reads the summary once for each read of the records", async () => {
    const { h, rx, page } = ui;
    const reads = { summary: 0, records: 0 };
    page.on("request", (r) => {
      const path = new URL(r.url()).pathname;
      if (path === "/api/v1/dlq/summary") reads.summary++;
      if (path === "/api/v1/dlq") reads.records++;
    });
    await page.goto(`${h.url}/ui/#/dlq`);
    const records = page.getByRole("table", { name: "Open records, newest first" });
    await records
      .getByRole("link", { name: rx.url("/orders") })
      .first()
      .waitFor();
    await page
      .getByRole("table", { name: "Groups of open records" })
      .getByRole("button", { name: /Replay group/ })
      .waitFor();
    // The first read and three refreshes, about 6 s.
    while (reads.records < 4) await page.waitForTimeout(200);
    await page.waitForTimeout(500);
    expect(reads.summary).toBe(reads.records);
  }, 30_000);
});
