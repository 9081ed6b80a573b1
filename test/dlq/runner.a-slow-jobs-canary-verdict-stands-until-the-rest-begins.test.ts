/**
 * A job's canary verdict ("canary: 1 of 1 replays succeeded (100 %); replaying the rest") is one
 * of the reasons the CLI prints above the bar (runbook step 5), and the dashboard's job page
 * shows. A job slower than one replay a second reaches its verdict between two tokens; the verdict
 * was replaced by "waiting for its rate" in the same moment it was written, so nobody following
 * the job (polling it every half second) ever saw it. It stands now until the rest's first replay
 * goes, as it did before the rate had a reason of its own.
 */
import { expect, it, vi } from "vitest";
import { EngineEvents } from "../../src/engine/events.js";
import { newId } from "../../src/ids.js";
import { aNewJob, deadLetter, replayOutcome } from "../store/behaviour/dlq-fixtures.js";
import { claimAll, seedApp } from "../store/behaviour/fixtures.js";
import { FakeClock } from "../support/fake-clock.js";
import { aRunner, untilJob } from "../support/replay-runner.js";
import { useCleanup } from "../support/cleanup.js";
import { aSharedStore } from "../support/postgres.js";

const cleanup = useCleanup();

it("keeps a slow job's canary verdict as its reason until the rest's first replay goes", async () => {
  const store = await aSharedStore(cleanup);
  const clock = new FakeClock();
  const events = new EngineEvents();
  const { app } = await seedApp(store);
  const records = [];
  for (let i = 0; i < 3; i++) records.push(await deadLetter(store, app.id));
  // Every reason the job shows, with the (fake) time it began to show.
  const shown: { reason: string | null; at: number }[] = [];
  const update = store.updateReplayJob.bind(store);
  vi.spyOn(store, "updateReplayJob").mockImplementation(async (u) => {
    const job = await update(u);
    if (job && u.reason !== undefined) shown.push({ reason: u.reason, at: clock.now() });
    return job;
  });
  const runner = await aRunner(store, clock, cleanup, { events, pollMs: 50 });
  // One replay every 20 s, the first of them a canary of one.
  const job = await aNewJob(store, {
    id: newId("job", clock.now()),
    task: "dlq.replay",
    selection: { ids: records.map((r) => r.id) },
    ratePerSecond: 0.05,
    canarySize: 1,
    canaryThreshold: 0.9,
    startAt: clock.now(),
    createdBy: "ops",
    note: null,
    now: clock.now(),
  });
  const started = clock.now();
  runner.wake();
  await untilJob(store, job.id, (j) => j.progress.queued === 1);

  // The canary's replay comes back at once; the rest's first is 20 s away.
  const [canary] = await claimAll(store, clock.now());
  const { changes } = await store.recordAttempts([replayOutcome(canary!, clock.now(), true)]);
  for (const change of changes) events.emit({ type: "dead-letter", change });
  const verdict = "canary: 1 of 1 replays succeeded (100 %); replaying the rest";
  await untilJob(store, job.id, (j) => j.stage === "rest");

  clock.advance(20_000);
  await untilJob(store, job.id, (j) => j.progress.queued === 2);
  const rate = "waiting for its rate: 0.05 replays a second";
  await untilJob(store, job.id, (j) => j.reason === rate);

  const reasons = shown.map((s) => s.reason).filter((r, i, all) => r !== all[i - 1]);
  expect(reasons.slice(reasons.indexOf(verdict))).toEqual([verdict, rate]);
  // The verdict stood for the whole wait for the rest's first replay.
  expect(shown.find((s) => s.reason === rate)!.at).toBe(started + 20_000);
});
