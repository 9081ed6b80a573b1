/**
 * A slow bulk replay on a shared store (PostgreSQL): at 0.01 replays a second the runner waits
 * 100 s for its next token, longer than its job's 60 s lease. It must keep the lease through the
 * wait, or another worker takes the job up and both replay at the job's rate: twice the rate the
 * receiver was promised.
 */
import { expect, it, vi } from "vitest";
import { EngineEvents } from "../../src/engine/events.js";
import { deadLetter, replayOutcome } from "../store/behaviour/dlq-fixtures.js";
import { claimAll, seedApp } from "../store/behaviour/fixtures.js";
import { FakeClock } from "../support/fake-clock.js";
import { aJob, aRunner, LEASE_MS, untilJob, WAIT } from "../support/replay-runner.js";
import { useCleanup } from "../support/cleanup.js";
import { aSharedStore } from "../support/postgres.js";

const cleanup = useCleanup();

it("renews its lease while it waits for a token, so no other runner takes the job", async () => {
  const store = await aSharedStore(cleanup);
  const clock = new FakeClock();
  const events = new EngineEvents();
  const { app } = await seedApp(store);
  const records = [await deadLetter(store, app.id), await deadLetter(store, app.id)];
  // Only replay results wake the runner: its real-time safety net and its looks for other jobs
  // (which wake it too) are out of the way, so the wait itself must renew the lease.
  const runner = await aRunner(store, clock, cleanup, {
    events,
    pollMs: 3_600_000,
    sharedPollMs: 3_600_000,
  });
  const job = await aJob(
    store,
    clock,
    records.map((r) => r.id),
    0.01,
  );
  runner.wake();
  await untilJob(store, job.id, (j) => j.progress.queued === 1);

  // The first replay comes back as the engine would report it; the next token is 100 s away.
  const updates = vi.spyOn(store, "updateReplayJob");
  // The runner's waits on the clock for its next renewal (its looks wait an hour).
  const timers = vi.spyOn(clock, "setTimer");
  const waits = () => timers.mock.calls.filter(([, ms]) => ms === LEASE_MS / 3).length;
  const [replay] = await claimAll(store, clock.now());
  const { changes } = await store.recordAttempts([replayOutcome(replay!, clock.now(), true)]);
  for (const change of changes) events.emit({ type: "dead-letter", change });
  await vi.waitFor(() => expect(updates).toHaveBeenCalled(), WAIT);
  await updates.mock.results.at(-1)!.value;

  // Through the wait, the runner says it still holds the job at least every third of the lease.
  let renewals = updates.mock.calls.length;
  let armed = 0;
  for (let waited = 0; waited < 60_000; waited += LEASE_MS / 3) {
    // Time moves on once the runner waits on the clock. Moved while it was still between its
    // renewal's answer and its wait (as a loaded machine let happen), the wait began a third of
    // the lease later than the test counted, and no renewal came.
    await vi.waitFor(() => expect(waits()).toBeGreaterThan(armed), WAIT);
    armed = waits();
    clock.advance(LEASE_MS / 3);
    await vi.waitFor(() => expect(updates.mock.calls.length).toBeGreaterThan(renewals), WAIT);
    renewals = updates.mock.calls.length;
    await updates.mock.results.at(-1)!.value;
  }
  clock.advance(5_000);
  // Past the first lease: another worker looking now finds the job held.
  const now = clock.now();
  const elsewhere = { now, leaseUntil: now + LEASE_MS, limit: 1, runner: "rnr_elsewhere" };
  expect(await store.claimReplayJobs(elsewhere)).toEqual([]);

  clock.advance(100_000 - 65_000);
  const next = await untilJob(store, job.id, (j) => j.progress.queued === 2);
  expect(next.state).toBe("running");
});
