/**
 * A replay withdrawn because its endpoint (or application) was deleted brings no result, so it is
 * not part of the canary sample: the sample is filled from the other selected records, and a
 * canary that was all withdrawn neither ends the job as completed nor leaves the rest unreplayed.
 */
import { describe, expect, it } from "vitest";
import type { ReplayJob } from "../../src/domain/types.js";
import { nextJobStep } from "../../src/dlq/job-step.js";
import { aRunningJob } from "../support/replay-job.js";

const aJob = (progress: Partial<ReplayJob["progress"]>, stage: ReplayJob["stage"]) =>
  aRunningJob(progress, { stage, selection: { appId: "app_x" } });

describe("withdrawn replays and the canary", () => {
  it("a canary all withdrawn is sampled again from the records still waiting", () => {
    expect(nextJobStep(aJob({ queued: 10, withdrawn: 10 }, "canary"), 5)).toEqual({
      kind: "enqueue",
    });
  });

  it("the sample is ten results: withdrawn replays make room for others", () => {
    expect(nextJobStep(aJob({ queued: 10, withdrawn: 4, succeeded: 6 }, "canary"), 5)).toEqual({
      kind: "enqueue",
    });
    expect(nextJobStep(aJob({ queued: 14, withdrawn: 4, succeeded: 10 }, "canary"), 5)).toEqual({
      kind: "advance",
      reason: "canary: 10 of 10 replays succeeded (100 %); replaying the rest",
    });
  });

  it("the end counts the withdrawn replays, so the numbers add up to the selection", () => {
    expect(nextJobStep(aJob({ queued: 30, withdrawn: 4, succeeded: 26 }, "rest"), 5)).toEqual({
      kind: "finish",
      state: "completed",
      reason: "30 selected: 26 delivered, 0 failed, 0 skipped, 4 withdrawn",
    });
  });
});
