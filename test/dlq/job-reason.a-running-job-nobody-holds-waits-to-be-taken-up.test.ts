/**
 * A job's reason as hookline shows it: the one its runner wrote, save for a running job no runner
 * holds (its lease ran out, or it was handed back or let go), which waits to be taken up again.
 */
import { expect, it } from "vitest";
import { reasonShown } from "../../src/dlq/job-reason.js";
import { aRunningJob } from "../support/replay-job.js";

const NOW = Date.UTC(2026, 2, 2, 9, 40);
const WRITTEN = "waiting for the last 3 results";
const job = (overrides: Parameters<typeof aRunningJob>[1]) =>
  aRunningJob({ queued: 3 }, { reason: WRITTEN, ...overrides });

it("shows what the runner holding a running job wrote", () => {
  expect(reasonShown(job({ leaseUntil: NOW + 1 }), NOW)).toBe(WRITTEN);
});

it("says a running job whose lease ran out waits to be taken up again, and since when", () => {
  expect(reasonShown(job({ leaseUntil: NOW - 60_000 }), NOW)).toBe(
    "waiting to be taken up again: the hookline process running it stopped holding it (its hold on the job " +
      "ran out at 2026-03-02T09:39:00.000Z); the next process with room for another replay job " +
      "takes it up and carries on where it was",
  );
  // Handed back as its runner stopped: its lease ends then.
  expect(reasonShown(job({ leaseUntil: NOW }), NOW)).toMatch(/^waiting to be taken up again: /);
});

it("says so of a running job let go at a start, without a time", () => {
  expect(reasonShown(job({ leaseUntil: null }), NOW)).toBe(
    "waiting to be taken up again: the hookline process running it stopped holding it; the next process " +
      "with room for another replay job takes it up and carries on where it was",
  );
});

it("leaves the reason of a job that is not running as written", () => {
  for (const state of ["scheduled", "completed", "stopped", "cancelled"] as const) {
    expect(reasonShown(job({ state, leaseUntil: null }), NOW)).toBe(WRITTEN);
  }
});
