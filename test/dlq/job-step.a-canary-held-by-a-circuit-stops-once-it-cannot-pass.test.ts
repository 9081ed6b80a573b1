/**
 * A canary whose replays wait behind an open circuit stops as soon as its failures alone put the
 * threshold out of reach; while it can still pass, or while nothing holds it, it waits as before.
 */
import { describe, expect, it } from "vitest";
import type { ReplayJob } from "../../src/domain/types.js";
import { nextJobStep } from "../../src/dlq/job-step.js";
import { FakeClock } from "../support/fake-clock.js";
import { aRunningJob } from "../support/replay-job.js";

describe("a canary held by an open circuit", () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1, 9));
  const held = (replays: number) => ({
    now: clock.now(),
    held: [{ endpointId: "ep_a", replays, openedAt: clock.now(), nextProbeAt: clock.now() + 1 }],
  });
  const canary = (progress: Partial<ReplayJob["progress"]>) => aRunningJob(progress);

  it("stops once the sample cannot reach the threshold, counting what is still to come", () => {
    // 10 at 90 %: one failure leaves 9 of 10 possible; the second puts it out of reach.
    expect(nextJobStep(canary({ queued: 10, succeeded: 3, failed: 1 }), 10, held(6))).toMatchObject(
      { kind: "wait" },
    );
    expect(nextJobStep(canary({ queued: 5, failed: 2 }), 3, held(3))).toEqual({
      kind: "finish",
      state: "stopped",
      reason:
        "canary: 0 of 2 replays succeeded; with the 8 still to come at most 80 % can, below " +
        "the 90 % threshold; replays not yet sent are withdrawn, and the other 25 selected " +
        "records were not replayed",
    });
  });

  it("waits for the results when no circuit holds them: they come soon", () => {
    expect(nextJobStep(canary({ queued: 5, failed: 2 }), 3)).toMatchObject({ kind: "wait" });
  });

  it("a sample cut short by the selection counts only what can still come", () => {
    const few = aRunningJob({ total: 4, queued: 4, succeeded: 1, failed: 1 });
    expect(nextJobStep(few, 5, held(2))).toMatchObject({
      kind: "finish",
      reason: expect.stringMatching(
        /^canary: 1 of 2 replays succeeded; with the 2 still to come at most 75 % can/,
      ),
    });
  });
});
