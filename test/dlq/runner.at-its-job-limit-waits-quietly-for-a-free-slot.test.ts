/**
 * A runner already running as many jobs as it may (`maxJobs`) leaves a job that is due waiting
 * until one of its jobs ends. It must wait quietly: looking for jobs again at once, over and over,
 * because the waiting job's start time has passed, would wake its running jobs each time, and
 * each would write its lease on every wake-up.
 */
import { expect, it, vi } from "vitest";
import { deadLetter } from "../store/behaviour/dlq-fixtures.js";
import { seedApp } from "../store/behaviour/fixtures.js";
import { FakeClock } from "../support/fake-clock.js";
import { useCleanup } from "../support/cleanup.js";
import { aJob, aLoneRunner, aSqliteStore, untilJob } from "../support/replay-runner.js";

const cleanup = useCleanup();

/** Lets the event loop turn `n` times. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

it("a due job beyond the limit does not make the runner look again and again", async () => {
  const store = await aSqliteStore(cleanup);
  const clock = new FakeClock();
  const { app } = await seedApp(store);
  const record = await deadLetter(store, app.id, { at: clock.now() });
  const runner = await aLoneRunner(store, clock, cleanup, {
    settings: { maxJobs: 1, pollMs: 60_000 },
  });

  const first = await aJob(store, clock, [record.id]);
  runner.wake();
  await untilJob(store, first.id, (j) => j.reason === "waiting for the last 1 results");
  const second = await aJob(store, clock, ["dlq_00000000000000000000000001"]);
  // A full runner's look is noteReplayJobsWaiting (it tells the due job why it waits); one with
  // room looks with nextReplayJobAt. Counting only the latter counted none of a full runner's.
  const looks = [vi.spyOn(store, "noteReplayJobsWaiting"), vi.spyOn(store, "nextReplayJobAt")];
  const writes = vi.spyOn(store, "updateReplayJob");
  runner.wake();
  await turns(200);
  expect(looks[0]!.mock.calls.length).toBeGreaterThan(0);
  expect(looks.reduce((n, spy) => n + spy.mock.calls.length, 0)).toBeLessThanOrEqual(2);
  expect(writes.mock.calls.length).toBeLessThanOrEqual(2);
  expect((await store.getReplayJob(second.id))!.state).toBe("scheduled");

  // Once the first job ends, the second is taken up.
  await store.cancelReplayJob({ id: first.id, actor: "ops", now: clock.now() });
  runner.wake();
  await untilJob(store, second.id, (j) => j.state === "completed");
});
