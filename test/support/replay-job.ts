/** A running bulk replay job as `nextJobStep` sees it, for the pure tests of what a job does next. */
import type { ReplayJob } from "../../src/domain/types.js";

/** A running job in its canary stage (30 selected, canary of 10 at 90 %), with the given progress. */
export function aRunningJob(
  progress: Partial<ReplayJob["progress"]>,
  overrides: Partial<ReplayJob> = {},
): ReplayJob {
  return {
    id: "job_x",
    task: "dlq.replay",
    state: "running",
    stage: "canary",
    selection: { endpointId: "ep_x" },
    ratePerSecond: 5,
    canarySize: 10,
    canaryThreshold: 0.9,
    startAt: 0,
    createdBy: "ops",
    note: null,
    reason: null,
    leaseUntil: null,
    progress: {
      total: 30,
      queued: 0,
      succeeded: 0,
      failed: 0,
      skipped: 0,
      withdrawn: 0,
      ...progress,
    },
    createdAt: 0,
    updatedAt: 0,
    startedAt: 0,
    finishedAt: null,
    ...overrides,
  };
}
