/**
 * The replay-bulk progress bar counts withdrawn replays (their endpoint was deleted) as done, so
 * it says how many there were: the counts it shows add up to the records it says are done.
 */
import { expect, it } from "vitest";
import { renderProgress } from "../../src/cli/progress.js";

it("shows withdrawn replays next to the others once there are some", () => {
  const job = (withdrawn: number) => ({
    state: "running",
    stage: "rest",
    startAt: "2026-01-01T10:00:00.000Z",
    reason: null,
    progress: { total: 20, succeeded: 3, failed: 1, skipped: 0, withdrawn, outstanding: 0 },
  });
  expect(renderProgress(job(2), 20)).toBe(
    "[======--------------] 6/20  ok 3  failed 1  skipped 0  withdrawn 2  rest  running",
  );
  expect(renderProgress(job(0), 20)).toBe(
    "[====----------------] 4/20  ok 3  failed 1  skipped 0  rest  running",
  );
});
