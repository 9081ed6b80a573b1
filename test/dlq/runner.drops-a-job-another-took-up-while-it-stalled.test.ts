/**
 * Two runners on a store several processes share (PostgreSQL), each on a clock of its own. Runner
 * A takes a job up and queues its first replay, then stalls (its clock stands still) for longer
 * than the job's lease; runner B, whose clock is past that lease, takes the job up and queues the
 * second. When A wakes, the job is no longer its own: it must drop it, not queue the third
 * replay beside B (no record would be replayed twice, but the job would go at twice its rate).
 */
import { expect, it, vi, type MockInstance } from "vitest";
import { deadLetter } from "../store/behaviour/dlq-fixtures.js";
import { seedApp } from "../store/behaviour/fixtures.js";
import { FakeClock } from "../support/fake-clock.js";
import { useCleanup } from "../support/cleanup.js";
import { aSharedStore, freshSchemaName } from "../support/postgres.js";
import { aJob, aRunner, LEASE_MS, untilJob, WAIT } from "../support/replay-runner.js";

const cleanup = useCleanup();

/**
 * Waits until a runner has renewed its job once more after queueing a replay: it then waits for
 * its next token on its clock, and holds no lock on the job's row.
 */
async function waitingForToken(updates: MockInstance): Promise<void> {
  await vi.waitFor(() => expect(updates.mock.calls.length).toBeGreaterThanOrEqual(2), WAIT);
  await updates.mock.results.at(-1)!.value;
}

it("drops a job another runner took up while it stalled past its lease", async () => {
  const schema = freshSchemaName();
  // Two processes: a store each, on one schema.
  const storeA = await aSharedStore(cleanup, schema);
  const storeB = await aSharedStore(cleanup, schema);
  const { app } = await seedApp(storeA);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await deadLetter(storeA, app.id)).id);
  // Nothing but the token wait wakes either runner.
  const quiet = { pollMs: 3_600_000, sharedPollMs: 3_600_000 };
  const clockA = new FakeClock();
  const logs: string[] = [];
  const logger = { info: (_: object, msg: string) => logs.push(msg), error: () => undefined };
  const a = await aRunner(storeA, clockA, cleanup, { ...quiet, logger });
  // Four replays a second: a token every 250 ms, up to four replays out at once.
  const job = await aJob(storeA, clockA, ids, 4);
  const renewalsA = vi.spyOn(storeA, "updateReplayJob");
  a.wake();
  await untilJob(storeA, job.id, (j) => j.progress.queued === 1);
  await waitingForToken(renewalsA);

  // A's next token is 250 ms away on a clock that stands still: A has stalled. B's clock is past
  // A's lease.
  const clockB = new FakeClock(clockA.now() + LEASE_MS + 1_000);
  const renewalsB = vi.spyOn(storeB, "updateReplayJob");
  await aRunner(storeB, clockB, cleanup, quiet);
  await untilJob(storeB, job.id, (j) => j.progress.queued === 2);
  await waitingForToken(renewalsB);

  // A wakes. Whatever it does next is one of two things: queue a replay, or look for jobs to
  // take up (having dropped this one).
  const queues = vi.spyOn(storeA, "enqueueJobReplays");
  const looks = vi.spyOn(storeA, "claimReplayJobs");
  clockA.advance(250);
  await vi.waitFor(
    () => expect(queues.mock.calls.length + looks.mock.calls.length).toBeGreaterThan(0),
    WAIT,
  );
  expect(queues).not.toHaveBeenCalled();
  expect(logs).toContain(
    "replay job taken up by another runner while this one stalled; dropping it",
  );
  expect((await storeA.getReplayJob(job.id))!.progress.queued).toBe(2);

  // B still holds the job and carries on at the job's rate.
  clockB.advance(250);
  const next = await untilJob(storeB, job.id, (j) => j.progress.queued === 3);
  expect(next.state).toBe("running");
});
