/**
 * A bulk replay job's page shows its canary's threshold as it was given: 99.5 % read "100%",
 * rounded to a whole percent, as if every replay of the sample had to succeed.
 */
import { describe, expect, it } from "vitest";
import { signIn, useDashboard } from "../support/browser.js";
import { anEndpoint, deadLetters, PATIENT_BREAKER } from "../support/dlq.js";

describe("operator console: a replay job's canary", () => {
  const ui = useDashboard({
    hookline: { overrides: { breaker: PATIENT_BREAKER } },
    receiver: () => ({ status: 400, body: "bad" }),
  });

  it("shows a threshold of 99.5 % as 99.5%", async () => {
    const { h, rx, page } = ui;
    const ep = await anEndpoint(h, rx.url("/orders"));
    await deadLetters(h, ep, 1);
    const job = await h.api<{ id: string }>("POST", "/api/v1/dlq/replay", {
      endpointId: ep.endpointId,
      canarySize: 10,
      canaryThreshold: 0.995,
      startAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(job.status).toBe(202);
    await signIn(page, h.url, h.token);
    await page.goto(`${h.url}/ui/#/jobs/${job.body.id}`);
    await page.getByTestId("job-state").getByText("scheduled").waitFor();
    const line = page.locator("p").filter({ has: page.getByTestId("job-state") });
    expect(await line.innerText()).toContain("canary 10 at 99.5%");
  });
});
