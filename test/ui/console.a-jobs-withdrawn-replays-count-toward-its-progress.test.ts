/**
 * A job's replays can end without a result: withdrawn when their endpoint is disabled (or deleted)
 * while they wait. They are done with, as the CLI's progress bar counts them: a completed job's
 * page must not read "0 of 2 done" with nothing to say where the other two went.
 */
import { describe, expect, it } from "vitest";
import { signIn, useDashboard } from "../support/browser.js";
import { anEndpoint, deadLetters, untilJob, type JobOut } from "../support/dlq.js";

describe("operator console: a replay job's progress", () => {
  const ui = useDashboard({
    // The second failure opens the circuit; its probe is an hour off, so replays wait for it.
    hookline: { overrides: { breaker: { consecutiveFailures: 2, probeDelayMs: 3_600_000 } } },
    receiver: () => ({ status: 503, body: "maintenance" }),
  });

  it("counts withdrawn replays as done, and says how many", async () => {
    const { h, rx, page } = ui;
    const ep = await anEndpoint(h, rx.url("/orders"));
    await deadLetters(h, ep, 2);
    await h.waitFor((e) => e.type === "circuit" && e.transition.to === "open");
    const started = await h.api<JobOut>("POST", "/api/v1/dlq/replay", {
      endpointId: ep.endpointId,
      canarySize: 0,
      ratePerSecond: 100,
    });
    expect(started.status).toBe(202);
    await untilJob(h, started.body.id, (j) => j.progress.queued === 2);
    const path = `/api/v1/app/${ep.appId}/endpoint/${ep.endpointId}`;
    expect((await h.api("PATCH", path, { disabled: true })).status).toBe(200);
    const job = await untilJob(h, started.body.id, (j) => j.state === "completed");
    expect(job.progress).toMatchObject({ total: 2, withdrawn: 2 });

    await signIn(page, h.url, h.token);
    await page.goto(`${h.url}/ui/#/jobs/${job.id}`);
    await page.getByTestId("job-state").getByText("completed").waitFor();
    expect(await page.getByTestId("job-progress").textContent()).toBe(
      "2 of 2 done · 0 delivered, 0 failed, 0 skipped, 2 withdrawn",
    );
  });
});
