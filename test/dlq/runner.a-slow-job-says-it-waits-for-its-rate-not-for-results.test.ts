/**
 * A job's reason says what it waits for (runbook step 5: the CLI prints it above the bar). A job
 * slower than one replay a second has a window of one replay out at once, so each replay fills
 * it; once its result is in, the job waits for its rate alone, up to 100 s at 0.01 a second. It
 * said "waiting for results: 1 replays out at once" all that time, with nothing out.
 */
import { expect, it } from "vitest";
import { EngineEvents } from "../../src/engine/events.js";
import { deadLetter, replayOutcome } from "../store/behaviour/dlq-fixtures.js";
import { claimAll, seedApp } from "../store/behaviour/fixtures.js";
import { FakeClock } from "../support/fake-clock.js";
import { aJob, aRunner, untilJob } from "../support/replay-runner.js";
import { useCleanup } from "../support/cleanup.js";
import { aSharedStore } from "../support/postgres.js";

const cleanup = useCleanup();

it("between the replays of a slow job its reason names its rate; a replay still out when the next is due names the results", async () => {
  const store = await aSharedStore(cleanup);
  const clock = new FakeClock();
  const events = new EngineEvents();
  const { app } = await seedApp(store);
  const records = [];
  for (let i = 0; i < 3; i++) records.push(await deadLetter(store, app.id));
  const runner = await aRunner(store, clock, cleanup, { events, pollMs: 50 });
  // One replay every 20 s.
  const job = await aJob(
    store,
    clock,
    records.map((r) => r.id),
    0.05,
  );
  runner.wake();
  await untilJob(store, job.id, (j) => j.progress.queued === 1);

  // The first replay comes back at once: nothing is out, and the next is 20 s away.
  const [first] = await claimAll(store, clock.now());
  const { changes } = await store.recordAttempts([replayOutcome(first!, clock.now(), true)]);
  for (const change of changes) events.emit({ type: "dead-letter", change });
  const between = await untilJob(
    store,
    job.id,
    (j) => j.progress.succeeded === 1 && j.reason !== null,
  );
  expect(between.reason).toBe("waiting for its rate: 0.05 replays a second");

  // The second goes at its time and its receiver keeps it past the third's: now results hold
  // the job.
  clock.advance(20_000);
  await untilJob(store, job.id, (j) => j.progress.queued === 2);
  clock.advance(20_000);
  const held = await untilJob(store, job.id, (j) => j.reason?.includes("results") === true);
  expect(held.reason).toBe("waiting for results: 1 replays out at once");
  expect(held.progress.queued).toBe(2);
});
