/**
 * A bulk replay job's page offers "Cancel job" while the job is scheduled or running, and not once
 * it has ended: the button stayed on finished jobs, and pressing it answered with an error.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { signIn, useDashboard } from "../support/browser.js";
import { anEndpoint, deadLetters, PATIENT_BREAKER } from "../support/dlq.js";

describe("operator console: cancelling a replay job", () => {
  const ui = useDashboard({
    hookline: { overrides: { breaker: PATIENT_BREAKER } },
    receiver: () => ({ status: 400, body: "bad" }),
  });
  let endpointId: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    const ep = await anEndpoint(h, rx.url("/orders"));
    endpointId = ep.endpointId;
    await deadLetters(h, ep, 2);
    await signIn(page, h.url, h.token);
  });

  it("offers Cancel on a scheduled job, and no more once it is cancelled", async () => {
    const { h, page } = ui;
    const job = await h.api<{ id: string }>("POST", "/api/v1/dlq/replay", {
      endpointId,
      startAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(job.status).toBe(202);
    await page.goto(`${h.url}/ui/#/jobs/${job.body.id}`);
    await page.getByTestId("job-state").getByText("scheduled").waitFor();
    await page.getByRole("button", { name: "Cancel job" }).click();
    // Asked first, in the page.
    await page.getByRole("dialog").getByRole("button", { name: "Cancel job" }).click();
    await page.getByTestId("job-state").getByText("cancelled").waitFor();
    await page
      .getByRole("button", { name: "Cancel job" })
      .waitFor({ state: "detached", timeout: 15_000 });
  });
});
