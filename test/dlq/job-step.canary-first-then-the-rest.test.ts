import { describe, expect, it } from "vitest";
import { nextJobStep, replayWindow } from "../../src/dlq/job-step.js";
import { aRunningJob as aJob } from "../support/replay-job.js";

describe("what a replay job does next", () => {
  it("queues the canary sample, then waits for all of its results", () => {
    expect(nextJobStep(aJob({ queued: 9, succeeded: 9 }), 5)).toEqual({ kind: "enqueue" });
    expect(nextJobStep(aJob({ queued: 10, succeeded: 8 }), 5)).toEqual({
      kind: "wait",
      reason: "canary: waiting for 2 of 10 results",
    });
  });

  it("skipped records do not count toward the sample", () => {
    expect(nextJobStep(aJob({ queued: 8, skipped: 5, succeeded: 8 }), 5)).toEqual({
      kind: "enqueue",
    });
  });

  it("stops below the threshold, saying how the sample did and what was left alone", () => {
    expect(nextJobStep(aJob({ queued: 10, succeeded: 8, failed: 2 }), 5)).toEqual({
      kind: "finish",
      state: "stopped",
      reason:
        "canary: 8 of 10 replays succeeded (80 %), below the 90 % threshold; " +
        "the other 20 selected records were not replayed",
    });
  });

  it("goes on to the rest at or above the threshold", () => {
    expect(nextJobStep(aJob({ queued: 10, succeeded: 9, failed: 1 }), 5)).toEqual({
      kind: "advance",
      reason: "canary: 9 of 10 replays succeeded (90 %); replaying the rest",
    });
  });

  it("keeps at most a window of replays out at once, then finishes when all are in", () => {
    const rest = { stage: "rest" as const };
    expect(nextJobStep(aJob({ queued: 14, succeeded: 10 }, rest), 5)).toEqual({ kind: "enqueue" });
    expect(nextJobStep(aJob({ queued: 15, succeeded: 10 }, rest), 5)).toMatchObject({
      kind: "wait",
    });
    expect(nextJobStep(aJob({ queued: 28, skipped: 2, succeeded: 27 }, rest), 5)).toEqual({
      kind: "wait",
      reason: "waiting for the last 1 results",
    });
    expect(
      nextJobStep(aJob({ queued: 28, skipped: 2, succeeded: 27, failed: 1 }, rest), 5),
    ).toEqual({
      kind: "finish",
      state: "completed",
      reason: "30 selected: 27 delivered, 1 failed, 2 skipped",
    });
  });

  it("a job with nothing to replay completes at once", () => {
    expect(nextJobStep(aJob({ total: 0 }), 5)).toMatchObject({
      kind: "finish",
      state: "completed",
    });
  });

  it("a window is about a second of the rate, at least one", () => {
    expect([replayWindow(0.2), replayWindow(5), replayWindow(7.5)]).toEqual([1, 5, 8]);
  });
});
