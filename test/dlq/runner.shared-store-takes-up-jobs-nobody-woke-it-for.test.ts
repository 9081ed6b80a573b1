/**
 * Bulk replay jobs on a store several processes share (PostgreSQL). A job created by another
 * process (an API-only one), or left by a runner that died or stopped, wakes nobody: the runner
 * must find it by itself. Time is the fake clock's, and no engine runs: a job selecting records
 * that do not exist completes at once, every item skipped.
 */
import { afterEach, expect, it, vi } from "vitest";
import { ReplayJobRunner } from "../../src/dlq/runner.js";
import type { ReplayJob } from "../../src/domain/types.js";
import { EngineEvents } from "../../src/engine/events.js";
import { SignallingControl } from "../../src/engine/signalling.js";
import { newId } from "../../src/ids.js";
import { PostgresStore } from "../../src/store/postgres/store.js";
import { deadLetter } from "../store/behaviour/dlq-fixtures.js";
import { seedApp } from "../store/behaviour/fixtures.js";
import { FakeClock } from "../support/fake-clock.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";

const POLL_MS = 5_000;
const LEASE_MS = 60_000;
const MISSING = ["dlq_00000000000000000000000001", "dlq_00000000000000000000000002"];

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function aSharedStore(): Promise<PostgresStore> {
  const schema = freshSchemaName();
  const store = await PostgresStore.open({
    connectionString: TEST_DATABASE_URL,
    schema,
    poolSize: 4,
  });
  cleanup.push(
    () => dropSchema(schema),
    () => store.close(),
  );
  return store;
}

/** A worker's runner as app.ts makes it for a shared store; its first look is done. */
async function aRunner(store: PostgresStore, clock: FakeClock): Promise<ReplayJobRunner> {
  const looks = vi.spyOn(store, "nextReplayJobAt");
  const runner = new ReplayJobRunner({
    store,
    // What an API-only process has: no engine here, no one to signal.
    engine: new SignallingControl(null, null, () => "wkr_test", { warn: () => {} }),
    events: new EngineEvents(),
    clock,
    settings: { maxReplays: 0, takeOverOnStart: false, sharedPollMs: POLL_MS, leaseMs: LEASE_MS },
  });
  await runner.start();
  cleanup.push(() => runner.stop());
  await vi.waitFor(() => expect(looks).toHaveBeenCalled());
  await looks.mock.results[0]!.value;
  looks.mockRestore();
  return runner;
}

function aJob(
  store: PostgresStore,
  clock: FakeClock,
  ids: string[],
  ratePerSecond = 1,
): Promise<ReplayJob> {
  return store.createReplayJob({
    id: newId("job", clock.now()),
    task: "dlq.replay",
    selection: { ids },
    ratePerSecond,
    canarySize: 0,
    canaryThreshold: 0.9,
    startAt: clock.now(),
    createdBy: "ops",
    note: null,
    now: clock.now(),
  });
}

/** Waits (real time) until the job satisfies `predicate`; fails after a few seconds. */
async function untilJob(
  store: PostgresStore,
  id: string,
  predicate: (job: ReplayJob) => boolean,
): Promise<ReplayJob> {
  let job: ReplayJob | null = null;
  await vi.waitFor(
    async () => {
      job = await store.getReplayJob(id);
      expect(job && predicate(job), JSON.stringify(job)).toBe(true);
    },
    { timeout: 4_000, interval: 20 },
  );
  return job!;
}

it("runs a job another process created, at its next look", async () => {
  const store = await aSharedStore();
  const clock = new FakeClock();
  await aRunner(store, clock);

  // Created as an API-only process does: in the store, with no runner of its own to wake.
  const job = await aJob(store, clock, MISSING);
  clock.advance(POLL_MS);
  const done = await untilJob(store, job.id, (j) => j.state === "completed");
  expect(done.progress).toMatchObject({ total: 2, skipped: 2 });
});

it("resumes a job whose runner died once its lease has run out", async () => {
  const store = await aSharedStore();
  const clock = new FakeClock();
  const job = await aJob(store, clock, MISSING);
  // A runner elsewhere took it up, then died: nothing will renew or hand back its lease.
  const now = clock.now();
  expect(await store.claimReplayJobs({ now, leaseUntil: now + LEASE_MS, limit: 1 })).toHaveLength(
    1,
  );

  await aRunner(store, clock);
  expect((await store.getReplayJob(job.id))!.progress.total).toBeNull();
  clock.advance(LEASE_MS + POLL_MS);
  const done = await untilJob(store, job.id, (j) => j.state === "completed");
  expect(done.progress).toMatchObject({ total: 2, skipped: 2 });
});

it("hands a job back when its runner stops mid-job, so another takes it up at once", async () => {
  const store = await aSharedStore();
  const clock = new FakeClock();
  const { app } = await seedApp(store);
  const records = [await deadLetter(store, app.id), await deadLetter(store, app.id)];
  const first = await aRunner(store, clock);
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

  await aRunner(store, clock);
  const taken = await untilJob(store, job.id, (j) => j.progress.queued === 2);
  expect(taken.state).toBe("running");
});
