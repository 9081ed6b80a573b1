/**
 * A duration reads the same way on every page: the endpoint's latency chart said "1.2 s" while
 * the endpoint list's mean latency said "1203 ms", and each attempt's duration (the endpoint's
 * attempts, a message's timeline, a dead-letter record) "1203 ms" too; a 15 s timeout read
 * "15001 ms" beside a chart's "15.0 s". Each now reads as the chart does, in ms below a second and
 * in seconds from one.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { anEndpoint, deadLetters, type RecordOut, type TestEndpoint } from "../support/dlq.js";
import { signIn, useDashboard } from "../support/browser.js";

// 1.2 s and more: a loaded machine answers later, never sooner.
const SECONDS = /^\d+\.\d\u00a0s$/;

describe("operator console: durations of a slow endpoint", () => {
  const ui = useDashboard({
    receiver: () => ({ status: 500, body: "slow and failing", delayMs: 1_200 }),
  });
  let ep: TestEndpoint;
  let record: RecordOut;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    ep = await anEndpoint(h, rx.url("/slow"));
    record = (await deadLetters(h, ep, 1))[0]!;
    await signIn(page, h.url, h.token);
  });

  it("are in seconds in the endpoint list's mean latency", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/ui/#/app/${ep.appId}/endpoints`);
    const table = page.getByRole("table", { name: "Endpoints and their health (last hour)" });
    const row = table.getByRole("row").filter({ hasText: "/slow" });
    await row.waitFor();
    // The fifth column, "Mean latency".
    expect((await row.getByRole("cell").nth(4).innerText()).trim()).toMatch(SECONDS);
  });

  it("are in seconds in the endpoint's attempts", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/ui/#/app/${ep.appId}/endpoint/${ep.endpointId}`);
    const row = page.getByRole("table", { name: "Recent attempts" }).getByRole("row").nth(1);
    await row.waitFor();
    // The fourth column, "Duration".
    expect((await row.getByRole("cell").nth(3).innerText()).trim()).toMatch(SECONDS);
  });

  it("are in seconds in a message's timeline", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/ui/#/app/${ep.appId}/message/${record.messageId}`);
    const line = page
      .getByRole("region", { name: "Deliveries" })
      .getByRole("listitem")
      .filter({ hasText: "HTTP 500" })
      .first();
    await line.waitFor();
    expect(await line.innerText()).toMatch(/ in \d+\.\d\u00a0s \(/);
  });

  it("are in seconds in a dead-letter record's attempts", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/ui/#/dlq/${record.id}`);
    const row = page
      .getByRole("table", { name: "Every attempt, original and replays" })
      .getByRole("row")
      .nth(1);
    await row.waitFor();
    expect((await row.getByRole("cell").nth(3).innerText()).trim()).toMatch(SECONDS);
  });
});
