/**
 * A job "never has more than about a second's worth out at once" (runbook step 5, "Gently";
 * architecture.md: so replays held back by a busy endpoint or an open circuit cannot pile up and
 * then arrive faster than the rate). The canary is replays too: with the defaults (canary 10, 5 a
 * second, a window of 5) its sample must not have more than the window out either.
 */
import { describe, expect, it } from "vitest";
import { nextJobStep, replayWindow } from "../../src/dlq/job-step.js";
import { aRunningJob } from "../support/replay-job.js";

describe("the canary and the window of replays out at once", () => {
  it("with a window's worth of the sample out and no result in, the canary waits", () => {
    const window = replayWindow(5);
    // Five canary replays queued, none back yet (an endpoint behind its probe, or busy).
    const job = aRunningJob({ queued: window }, { ratePerSecond: 5, canarySize: 10 });
    expect(nextJobStep(job, window)).toMatchObject({ kind: "wait" });
  });

  it("a large canary at a slow rate does not queue its whole sample at once", () => {
    const window = replayWindow(1);
    const job = aRunningJob(
      { total: 200, queued: 40, succeeded: 2 },
      { ratePerSecond: 1, canarySize: 100 },
    );
    // 38 replays out at a rate of one a second: far past a second's worth.
    expect(nextJobStep(job, window)).toMatchObject({ kind: "wait" });
  });
});
