/**
 * A job started while hookline already runs four stays scheduled until one of them ends. Its page
 * read "scheduled to start" a time already past, with nothing to say why, for as long as the four
 * ran; its reason, once it had one, came labelled "Result:". The page says why it has not started,
 * and stops saying so once it has.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signIn, useDashboard } from "../support/browser.js";
import {
  anEndpoint,
  deadLetters,
  PATIENT_BREAKER,
  untilJob,
  type JobOut,
  type TestEndpoint,
} from "../support/dlq.js";
import { holdingReceiver } from "../support/held-replay.js";

describe("operator console: a replay job waiting for a free slot", () => {
  const ui = useDashboard({ hookline: { overrides: { breaker: PATIENT_BREAKER } } });
  let rx: Awaited<ReturnType<typeof holdingReceiver>>;
  const endpoints: TestEndpoint[] = [];

  beforeAll(async () => {
    const { h, page } = ui;
    rx = await holdingReceiver();
    for (let i = 0; i < 5; i++) {
      const ep = await anEndpoint(h, rx.url);
      await deadLetters(h, ep, 1);
      endpoints.push(ep);
    }
    // Four jobs whose replays the receiver holds: each runs until its replay is answered.
    rx.hold();
    for (const ep of endpoints.slice(0, 4)) {
      const job = await h.api<JobOut>("POST", "/api/v1/dlq/replay", {
        endpointId: ep.endpointId,
        canarySize: 0,
      });
      await untilJob(h, job.body.id, (j) => j.state === "running" && j.progress.outstanding === 1);
    }
    await signIn(page, h.url, h.token);
  }, 60_000);
  afterAll(async () => {
    rx.answerHeld(200);
    await rx.close();
  });

  it("says why it has not started, until it starts", async () => {
    const { h, page } = ui;
    const job = await h.api<JobOut>("POST", "/api/v1/dlq/replay", {
      endpointId: endpoints[4]!.endpointId,
      canarySize: 0,
    });
    expect(job.status).toBe(202);
    await page.goto(`${h.url}/ui/#/jobs/${job.body.id}`);
    await page.getByTestId("job-state").getByText("scheduled").waitFor();
    const reason = page.getByTestId("job-reason");
    await reason.getByText(/waiting for a free slot/).waitFor();
    expect(await reason.textContent()).toBe(
      "Not started yet: waiting for a free slot: hookline is running 4 replay jobs, the most it " +
        "runs at once; it starts when one of them ends",
    );

    // The four end; the fifth runs and, its replay answered too, completes.
    rx.answerHeld(200);
    await rx.arrived();
    rx.answerHeld(200);
    await page.getByTestId("job-state").getByText("completed").waitFor({ timeout: 15_000 });
    expect(await reason.textContent()).toBe("Result: 1 selected: 1 delivered, 0 failed, 0 skipped");
  }, 60_000);
});
