/**
 * Bulk replay jobs on a store several processes share (PostgreSQL). A job created by another
 * process (an API-only one), or left by a runner that died or stopped, wakes nobody: the runner
 * must find it by itself. Time is the fake clock's, and no engine runs: a job selecting records
 * that do not exist completes at once, every item skipped.
 */
import { expect, it } from "vitest";
import { deadLetter } from "../store/behaviour/dlq-fixtures.js";
import { seedApp } from "../store/behaviour/fixtures.js";
import { FakeClock } from "../support/fake-clock.js";
import { aJob, aRunner, LEASE_MS, POLL_MS, untilJob } from "../support/replay-runner.js";
import { useCleanup } from "../support/cleanup.js";
import { aSharedStore } from "../support/postgres.js";

const MISSING = ["dlq_00000000000000000000000001", "dlq_00000000000000000000000002"];

const cleanup = useCleanup();

it("runs a job another process created, at its next look", async () => {
  const store = await aSharedStore(cleanup);
  const clock = new FakeClock();
  await aRunner(store, clock, cleanup);

  // Created as an API-only process does: in the store, with no runner of its own to wake.
  const job = await aJob(store, clock, MISSING);
  clock.advance(POLL_MS);
  const done = await untilJob(store, job.id, (j) => j.state === "completed");
  expect(done.progress).toMatchObject({ total: 2, skipped: 2 });
});

it("resumes a job whose runner died once its lease has run out", async () => {
  const store = await aSharedStore(cleanup);
  const clock = new FakeClock();
  const job = await aJob(store, clock, MISSING);
  // A runner elsewhere took it up, then died: nothing will renew or hand back its lease.
  const now = clock.now();
  const elsewhere = { now, leaseUntil: now + LEASE_MS, limit: 1, runner: "rnr_elsewhere" };
  expect(await store.claimReplayJobs(elsewhere)).toHaveLength(1);

  await aRunner(store, clock, cleanup);
  expect((await store.getReplayJob(job.id))!.progress.total).toBeNull();
  clock.advance(LEASE_MS + POLL_MS);
  const done = await untilJob(store, job.id, (j) => j.state === "completed");
  expect(done.progress).toMatchObject({ total: 2, skipped: 2 });
});

it("hands a job back when its runner stops mid-job, so another takes it up at once", async () => {
  const store = await aSharedStore(cleanup);
  const clock = new FakeClock();
  const { app } = await seedApp(store);
  const records = [await deadLetter(store, app.id), await deadLetter(store, app.id)];
  const first = await aRunner(store, clock, cleanup);
  const job = await aJob(
    store,
    clock,
    records.map((r) => r.id),
    2,
  );
  first.wake();
  // One replay queued; the second waits for a token of the 2/s rate, on a clock that stands still.
  await untilJob(store, job.id, (j) => j.progress.queued === 1);
  await first.stop();
  expect((await store.getReplayJob(job.id))!.state).toBe("running");

  await aRunner(store, clock, cleanup);
  const taken = await untilJob(store, job.id, (j) => j.progress.queued === 2);
  expect(taken.state).toBe("running");
});
