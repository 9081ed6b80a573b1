/**
 * A hookline process runs at most four bulk replay jobs at once. A fifth due meanwhile stayed
 * `scheduled` with no reason, its start time long passed, for as long as the four ran: read as
 * stuck. It says it waits for a free slot, saying what the runner knows (on a store several
 * processes share, only that this process runs four), written once as the wait begins rather
 * than at each look, and it goes once the job starts.
 */
import { describe, expect, it, vi } from "vitest";
import type { ReplayJob } from "../../src/domain/types.js";
import type { Store } from "../../src/store/port.js";
import { deadLetter } from "../store/behaviour/dlq-fixtures.js";
import { seedApp } from "../store/behaviour/fixtures.js";
import { useCleanup } from "../support/cleanup.js";
import { FakeClock } from "../support/fake-clock.js";
import { aSharedStore } from "../support/postgres.js";
import {
  aJob,
  aLoneRunner,
  aRunner,
  aSqliteStore,
  POLL_MS,
  untilJob,
  WAIT,
} from "../support/replay-runner.js";

const cleanup = useCleanup();

const ALONE =
  "waiting for a free slot: hookline is running 4 replay jobs, the most it runs at once; " +
  "it starts when one of them ends";
const SHARED =
  "waiting for a free slot: a hookline process found it due while running 4 replay jobs, " +
  "the most it runs at once; it starts when a process has room";

/** Runners as app.ts makes them: alone on SQLite, a worker among others on PostgreSQL. */
const setups = [
  {
    name: "SQLite",
    reason: ALONE,
    async start(clock: FakeClock) {
      const store = await aSqliteStore(cleanup);
      const runner = await aLoneRunner(store, clock, cleanup);
      return { store: store as Store, runner };
    },
  },
  {
    name: "PostgreSQL",
    reason: SHARED,
    async start(clock: FakeClock) {
      const store = await aSharedStore(cleanup);
      return { store: store as Store, runner: await aRunner(store, clock, cleanup) };
    },
  },
];

describe.each(setups)("on $name", ({ reason, start }) => {
  it("a job due while four run says it waits for a free slot, once, until it starts", async () => {
    const clock = new FakeClock();
    const { store, runner } = await start(clock);
    const jobOn = async (startIn = 0): Promise<ReplayJob> => {
      const { app } = await seedApp(store);
      const record = await deadLetter(store, app.id, { at: clock.now() });
      return aJob(store, clock, [record.id], 1, clock.now() + startIn);
    };
    const running: ReplayJob[] = [];
    for (let i = 0; i < 4; i++) running.push(await jobOn());
    runner.wake();
    for (const job of running) {
      await untilJob(store, job.id, (j) => j.reason === "waiting for the last 1 results");
    }

    const fifth = await jobOn();
    const sixth = await jobOn(60_000);
    const looks = vi.spyOn(store, "noteReplayJobsWaiting");
    runner.wake();
    const waiting = await untilJob(store, fifth.id, (j) => j.reason !== null);
    expect(waiting).toMatchObject({ state: "scheduled", reason, startedAt: null });
    expect((await store.getReplayJob(sixth.id))!.reason).toBeNull();

    // The sixth comes due while the four still run: it is told then, as the runner looks at its
    // start; the fifth is not written again.
    clock.advance(60_000);
    await untilJob(store, sixth.id, (j) => j.reason !== null);
    const seen = looks.mock.calls.length;
    clock.advance(POLL_MS);
    runner.wake();
    await vi.waitFor(() => expect(looks.mock.calls.length).toBeGreaterThan(seen), WAIT);
    expect(await store.getReplayJob(fifth.id)).toMatchObject({
      state: "scheduled",
      reason,
      updatedAt: waiting.updatedAt,
    });
    expect((await store.getReplayJob(sixth.id))!.state).toBe("scheduled");

    // One of the four ends: the fifth starts, and says what it waits for now.
    await store.cancelReplayJob({ id: running[0]!.id, actor: "ops", now: clock.now() });
    runner.wake();
    const started = await untilJob(store, fifth.id, (j) => j.state === "running");
    expect(started.reason).not.toBe(reason);
    await untilJob(store, fifth.id, (j) => j.reason === "waiting for the last 1 results");
    expect(await store.getReplayJob(sixth.id)).toMatchObject({ state: "scheduled", reason });
  });
});
