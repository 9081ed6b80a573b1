/**
 * A job is cancelled just as a runner takes it up, before it has taken its selection. The runner
 * must not take the records of a job that has ended: the cancelled job read as if it had
 * selected them all and left them waiting, and the log said it was running.
 */
import { expect, it, vi } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { useCleanup } from "../support/cleanup.js";
import { holdFirstCall } from "../support/held-store-call.js";
import { aJob, aLoneRunner, aSqliteStore, WAIT } from "../support/replay-runner.js";

const LISTED = ["dlq_00000000000000000000000001", "dlq_00000000000000000000000002"];

const cleanup = useCleanup();

it("leaves a job cancelled before it took its selection as it was cancelled", async () => {
  const store = await aSqliteStore(cleanup);
  const clock = new FakeClock();
  const held = holdFirstCall(store, "prepareReplayJob");
  const logs: string[] = [];
  const runner = await aLoneRunner(held.store, clock, cleanup, {
    logger: { info: (_o, msg) => logs.push(msg), error: (_o, msg) => logs.push(msg) },
  });

  const job = await aJob(store, clock, LISTED);
  runner.wake();
  await held.reached;
  const cancelled = await store.cancelReplayJob({ id: job.id, actor: "ops", now: clock.now() });
  expect(cancelled.ok).toBe(true);
  // Once the runner is done with the job it looks for others.
  const looks = vi.spyOn(store, "claimReplayJobs");
  held.release();
  await vi.waitFor(() => expect(looks).toHaveBeenCalled(), WAIT);

  const after = (await store.getReplayJob(job.id))!;
  expect(after).toMatchObject({ state: "cancelled", reason: "cancelled by ops" });
  expect(after.progress.total).toBeNull();
  expect(logs).not.toContain("replay job running");
});
