/**
 * After its canary passed, a job whose replays wait behind a circuit that opened since the job
 * started stops: the receiver is failing again. A circuit open from before the job, or a job
 * without a canary, only waits (and says for what).
 */
import { describe, expect, it } from "vitest";
import type { ReplayJob } from "../../src/domain/types.js";
import { nextJobStep } from "../../src/dlq/job-step.js";
import { FakeClock } from "../support/fake-clock.js";
import { aRunningJob } from "../support/replay-job.js";

describe("the rest of a job whose receiver fails again", () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1, 9));
  const startedAt = clock.now();
  const job = (overrides: Partial<ReplayJob> = {}) =>
    aRunningJob(
      { queued: 20, succeeded: 12, failed: 3 },
      { stage: "rest", startedAt, ...overrides },
    );
  const heldBy = (openedAt: number) => ({
    now: clock.now(),
    held: [{ endpointId: "ep_a", replays: 5, openedAt, nextProbeAt: openedAt + 3_600_000 }],
  });

  it("stops once a circuit that opened since the job started holds its replays", () => {
    clock.advance(90_000);
    expect(nextJobStep(job(), 5, heldBy(clock.now()))).toEqual({
      kind: "finish",
      state: "stopped",
      reason:
        "the receiver failed again after the canary passed: the circuit of endpoint ep_a " +
        "opened at 2026-01-01T09:01:30.000Z; replays not yet sent are withdrawn, and the " +
        "other 10 selected records were not replayed",
    });
  });

  it("waits behind a circuit open since before the job started", () => {
    expect(nextJobStep(job(), 5, heldBy(startedAt - 1))).toMatchObject({ kind: "wait" });
  });

  it("a job without a canary, or still in it, waits", () => {
    const opened = heldBy(clock.now());
    expect(nextJobStep(job({ canarySize: 0 }), 5, opened)).toMatchObject({ kind: "wait" });
    const canary = aRunningJob({ queued: 10, succeeded: 5 }, { startedAt });
    expect(nextJobStep(canary, 5, opened)).toMatchObject({ kind: "wait" });
  });
});
