/**
 * A scheduled job has taken no records yet, nor will one cancelled before its start. The job's
 * page read "selecting records…" for both, as if it were at work: it says when a scheduled job
 * starts, and that a cancelled one ended before it selected any.
 */
import { describe, expect, it } from "vitest";
import { signIn, useDashboard } from "../support/browser.js";
import { anEndpoint, deadLetters, PATIENT_BREAKER } from "../support/dlq.js";

describe("operator console: a replay job that has not started", () => {
  const ui = useDashboard({
    hookline: { overrides: { breaker: PATIENT_BREAKER } },
    receiver: () => ({ status: 400, body: "bad" }),
  });

  it("says it is scheduled, then that it was cancelled before it selected records", async () => {
    const { h, rx, page } = ui;
    const ep = await anEndpoint(h, rx.url("/orders"));
    await deadLetters(h, ep, 1);
    const job = await h.api<{ id: string }>("POST", "/api/v1/dlq/replay", {
      endpointId: ep.endpointId,
      startAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(job.status).toBe(202);
    await signIn(page, h.url, h.token);
    await page.goto(`${h.url}/ui/#/jobs/${job.body.id}`);
    await page.getByTestId("job-state").getByText("scheduled").waitFor();
    expect(await page.getByTestId("job-progress").textContent()).toMatch(/^scheduled to start /);

    await page.getByRole("button", { name: "Cancel job" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Cancel job" }).click();
    await page.getByTestId("job-state").getByText("cancelled").waitFor();
    expect(await page.getByTestId("job-progress").textContent()).toBe(
      "cancelled before it selected any records",
    );
  });
});
