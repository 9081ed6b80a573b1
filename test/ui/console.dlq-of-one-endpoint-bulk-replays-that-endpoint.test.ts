/**
 * The dead-letter page of one endpoint (`#/dlq?endpoint=ep_…`, the link from an endpoint page's
 * counts) starts its bulk replay for that endpoint. Its form's endpoint field was left empty,
 * which means every endpoint: an operator who opened one endpoint's dead letters and pressed
 * "Start bulk replay" under the words "Only the records of endpoint …" replayed every endpoint's
 * records of the day. A record opened there leads back to that endpoint's records; its back link
 * went to every endpoint's.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { signIn, useDashboard } from "../support/browser.js";
import { anEndpoint, deadLetters, PATIENT_BREAKER, type TestEndpoint } from "../support/dlq.js";

describe("operator console: one endpoint's dead letters", () => {
  const ui = useDashboard({
    hookline: { overrides: { breaker: PATIENT_BREAKER } },
    receiver: () => ({ status: 503 }),
  });
  let shown: TestEndpoint;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    shown = await anEndpoint(h, rx.url("/shown"));
    await deadLetters(h, shown, 1);
    await deadLetters(h, await anEndpoint(h, rx.url("/other")), 1);
    await signIn(page, h.url, h.token);
  });

  it("leads back from one of its records to that endpoint's records, not every endpoint's", async () => {
    const { h, rx, page } = ui;
    await page.goto(`${h.url}/ui/#/dlq?endpoint=${shown.endpointId}`);
    const records = page.getByRole("table", { name: "Open records, newest first" });
    await records.getByRole("link", { name: rx.url("/shown") }).waitFor();
    await records.getByRole("link", { name: /^dlq_/ }).click();
    await page.getByRole("heading", { name: /Dead-letter record/ }).waitFor();
    await page.getByRole("link", { name: /^← Dead letters/ }).click();
    await page.getByTestId("dlq-filter").waitFor();
    await records.getByRole("link", { name: rx.url("/shown") }).waitFor();
    expect(await records.getByRole("link", { name: rx.url("/other") }).count()).toBe(0);
  });

  it("starts its bulk replay for that endpoint's records only", async () => {
    const { h, rx, page } = ui;
    await page.goto(`${h.url}/ui/#/dlq?endpoint=${shown.endpointId}`);
    await page.getByTestId("dlq-filter").waitFor();
    expect(await page.getByLabel("Endpoint id").inputValue()).toBe(shown.endpointId);
    await page.getByRole("button", { name: "Start bulk replay" }).click();
    // The question names that endpoint and its record alone.
    await page
      .getByRole("dialog", { name: `Replay 1 record to ${rx.url("/shown")}?` })
      .getByRole("button", { name: "Start bulk replay" })
      .click();
    await page.getByRole("heading", { name: /Bulk replay job_/ }).waitFor();
    const id = /#\/jobs\/([^/?]+)/.exec(page.url())![1]!;
    const job = await h.api<{ selection: Record<string, unknown> }>(
      "GET",
      `/api/v1/dlq/replay/${id}`,
    );
    expect(job.body.selection).toMatchObject({ endpointId: shown.endpointId });
  });

  it("leaves the endpoint empty on every endpoint's page", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/ui/#/dlq`);
    // The filtered page stays until the router draws this one.
    await page.getByTestId("dlq-filter").waitFor({ state: "detached" });
    await page.getByRole("button", { name: "Start bulk replay" }).waitFor();
    expect(await page.getByLabel("Endpoint id").inputValue()).toBe("");
  });
});
