/**
 * The dead-letter queue in the operator console: groups with counts, one-click replay of a record
 * that then shows resolved, and a bulk replay by time window whose progress view runs to the end.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { screenshot, signIn, useDashboard } from "../support/browser.js";
import { anEndpoint, deadLetters, PATIENT_BREAKER, type RecordOut } from "../support/dlq.js";

describe("operator console: dead letters", () => {
  const ui = useDashboard({
    hookline: { overrides: { breaker: PATIENT_BREAKER } },
    receiver: () => ({ status: 503, body: "maintenance" }),
  });
  let records: RecordOut[];
  beforeAll(async () => {
    const { h, rx, page } = ui;
    const ep = await anEndpoint(h, rx.url("/orders"));
    records = await deadLetters(h, ep, 3);
    // The receiver is back: replays will succeed.
    rx.behave(() => ({ status: 200, body: "ok" }));
    await signIn(page, h.url, h.token);
  });

  it("groups open records and replays one with one click", async () => {
    const { h, page } = ui;
    await page.getByRole("navigation").getByRole("link", { name: "Dead letters" }).click();
    const groups = page.getByRole("table", { name: "Groups of open records" });
    await groups.getByRole("cell", { name: "exhausted", exact: true }).waitFor();
    // One group: three open, none replaying.
    await groups.getByRole("cell", { name: "3", exact: true }).waitFor();
    await groups.getByRole("cell", { name: "0", exact: true }).waitFor();
    await screenshot(page, "dlq");

    const first = records[0]!;
    await page.getByRole("button", { name: `Replay ${first.id}` }).click();
    await page.getByText("Replay succeeded").waitFor();
    await page.getByRole("link", { name: first.id }).waitFor({ state: "detached" });

    await page.goto(`${h.url}/ui/#/dlq/${first.id}`);
    await page.getByTestId("dlq-state").getByText("resolved").waitFor();
    await page
      .getByRole("table", { name: /Every attempt/ })
      .getByRole("cell", { name: "replay", exact: true })
      .waitFor();
    await screenshot(page, "dlq-record");
  });

  it("bulk-replays the rest by time window, canary first, with live progress", async () => {
    const { h, rx, page } = ui;
    await page.goto(`${h.url}/ui/#/dlq`);
    await page.getByLabel("Canary size").fill("1");
    await page.getByRole("button", { name: "Start bulk replay" }).click();
    // Asked first: the two records still open, at the one endpoint.
    await page
      .getByRole("dialog", { name: `Replay 2 records to ${rx.url("/orders")}?` })
      .getByRole("button", { name: "Start bulk replay" })
      .click();
    await page.getByRole("heading", { name: /Bulk replay job_/ }).waitFor();
    await page.getByTestId("job-state").getByText("completed").waitFor();
    expect(await page.getByTestId("job-progress").textContent()).toContain("2 of 2 done");
    // Three first attempts, one single replay, two replays by the job.
    expect(rx.on("/orders")).toHaveLength(6);
    await screenshot(page, "replay-job");

    await page.getByRole("navigation").getByRole("link", { name: "Replay jobs" }).click();
    await page.getByRole("table", { name: "Newest first" }).getByText("completed").waitFor();
    await screenshot(page, "replay-jobs");
  });
});
