/**
 * While a slow job's replay is out and its next token is not due either, both hold the job back.
 * It said "waiting for its rate" then, whatever held it back last time, so with a receiver slower
 * than the rate its reason went back and forth with every replay. It now keeps saying what held it
 * back alone last time (results, here), and says its rate again once a result comes back before
 * the next token is due.
 */
import { expect, it, vi } from "vitest";
import { EngineEvents } from "../../src/engine/events.js";
import { deadLetter, replayOutcome } from "../store/behaviour/dlq-fixtures.js";
import { claimAll, seedApp } from "../store/behaviour/fixtures.js";
import { FakeClock } from "../support/fake-clock.js";
import { aJob, aRunner, untilJob, WAIT } from "../support/replay-runner.js";
import { useCleanup } from "../support/cleanup.js";
import { aSharedStore } from "../support/postgres.js";

const cleanup = useCleanup();

const RATE = "waiting for its rate: 0.05 replays a second";
const RESULTS = "waiting for results: 1 replays out at once";

it("keeps saying it waits for results while the next replay is out, until a result beats the rate", async () => {
  const store = await aSharedStore(cleanup);
  const clock = new FakeClock();
  const events = new EngineEvents();
  const { app } = await seedApp(store);
  const records = [];
  for (let i = 0; i < 4; i++) records.push(await deadLetter(store, app.id));
  const runner = await aRunner(store, clock, cleanup, { events, pollMs: 50 });
  const updates = vi.spyOn(store, "updateReplayJob");
  // One replay every 20 s.
  const job = await aJob(
    store,
    clock,
    records.map((r) => r.id),
    0.05,
  );
  const answer = async (ok: boolean) => {
    const [replay] = await claimAll(store, clock.now());
    const { changes } = await store.recordAttempts([replayOutcome(replay!, clock.now(), ok)]);
    for (const change of changes) events.emit({ type: "dead-letter", change });
  };
  runner.wake();
  // The first replay is out and the next token 20 s away: nothing tells yet which holds it.
  await untilJob(store, job.id, (j) => j.progress.queued === 1 && j.reason === RATE);

  // Its token is due, the replay still out: results hold the job.
  clock.advance(20_000);
  await untilJob(store, job.id, (j) => j.reason === RESULTS);

  // Its result comes: the second replay goes at once, and is out with its token not due.
  await answer(true);
  await untilJob(store, job.id, (j) => j.progress.queued === 2);
  // Two more turns of the job's loop (each renews its lease first) have looked at it so.
  const seen = updates.mock.calls.length;
  await vi.waitFor(() => expect(updates.mock.calls.length).toBeGreaterThan(seen + 2), WAIT);
  expect((await store.getReplayJob(job.id))!.reason).toBe(RESULTS);

  // This one comes back before the next token is due: now the rate holds the job.
  await answer(true);
  const between = await untilJob(
    store,
    job.id,
    (j) => j.progress.succeeded === 2 && j.reason === RATE,
  );
  expect(between.progress.queued).toBe(2);
});
