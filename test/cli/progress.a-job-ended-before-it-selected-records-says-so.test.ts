/**
 * A job cancelled while it was scheduled never took its records. Following it, or looking at it
 * with `hookline dlq job`, read "cancelled: selecting records…", as if it were still at work.
 */
import { expect, it } from "vitest";
import { renderProgress } from "../../src/cli/progress.js";

it("says a job ended before it selected any records, rather than that it is selecting them", () => {
  const job = {
    state: "cancelled",
    stage: "canary",
    startAt: "2026-01-01T10:00:00.000Z",
    reason: "cancelled by admin",
    progress: { total: null, succeeded: 0, failed: 0, skipped: 0, withdrawn: 0, outstanding: 0 },
  };
  expect(renderProgress(job)).toBe("cancelled before it selected any records");
});
