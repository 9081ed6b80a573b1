/**
 * Bulk replay job runners on a store several processes share (PostgreSQL), as app.ts makes them
 * for a worker, with no engine: what a runner does is read back from the store.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, vi } from "vitest";
import { ReplayJobRunner, type ReplayRunnerDeps, type RunnerLogger } from "../../src/dlq/runner.js";
import type { ReplayJob } from "../../src/domain/types.js";
import type { EngineControl } from "../../src/engine/control.js";
import { EngineEvents } from "../../src/engine/events.js";
import { SignallingControl } from "../../src/engine/signalling.js";
import { newId } from "../../src/ids.js";
import type { PostgresStore } from "../../src/store/postgres/store.js";
import type { Store } from "../../src/store/port.js";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import type { FakeClock } from "./fake-clock.js";
import type { Cleanup } from "./cleanup.js";

export const POLL_MS = 5_000;
export const LEASE_MS = 60_000;
/**
 * How long a test waits (real time) for a runner to get somewhere: runners talk to a real store,
 * which on a machine busy with other test files can take seconds; waiting longer costs nothing
 * when it is quick.
 */
export const WAIT = { timeout: 20_000 };

/** A worker's runner for a shared store, started; resolves once its first look is done. */
export async function aRunner(
  store: PostgresStore,
  clock: FakeClock,
  cleanup: Cleanup,
  options: {
    events?: EngineEvents;
    pollMs?: number;
    sharedPollMs?: number;
    logger?: RunnerLogger;
    /** This process's engine; by default none, as in an API-only process. */
    engine?: EngineControl;
  } = {},
): Promise<ReplayJobRunner> {
  const looks = vi.spyOn(store, "nextReplayJobAt");
  const runner = new ReplayJobRunner({
    store,
    // What an API-only process has: no engine here, no one to signal.
    engine:
      options.engine ?? new SignallingControl(null, null, () => "wkr_test", { warn: () => {} }),
    events: options.events ?? new EngineEvents(),
    clock,
    settings: {
      maxReplays: 0,
      takeOverOnStart: false,
      sharedPollMs: options.sharedPollMs ?? POLL_MS,
      leaseMs: LEASE_MS,
      pollMs: options.pollMs,
    },
    logger: options.logger,
  });
  await runner.start();
  cleanup.push(() => runner.stop());
  await vi.waitFor(() => expect(looks).toHaveBeenCalled(), WAIT);
  await looks.mock.results[0]!.value;
  looks.mockRestore();
  return runner;
}

/**
 * A runner as app.ts makes it for a store of its own (it takes up the jobs left running when it
 * starts), with no engine: each replay stays out, and its job waits for the result. Started;
 * stopped by `cleanup`. `settings` adds to or replaces those.
 */
export async function aLoneRunner(
  store: Store,
  clock: FakeClock,
  cleanup: Cleanup,
  options: { settings?: Partial<ReplayRunnerDeps["settings"]>; logger?: RunnerLogger } = {},
): Promise<ReplayJobRunner> {
  const runner = new ReplayJobRunner({
    store,
    engine: new SignallingControl(null, null, () => "wkr_test", { warn: () => {} }),
    events: new EngineEvents(),
    clock,
    settings: { maxReplays: 0, takeOverOnStart: true, ...options.settings },
    logger: options.logger,
  });
  await runner.start();
  cleanup.push(() => runner.stop());
  return runner;
}

/** A bulk replay of `ids`, due now (or at `startAt`), without a canary. */
export async function aJob(
  store: Store,
  clock: FakeClock,
  ids: string[],
  ratePerSecond = 1,
  startAt = clock.now(),
): Promise<ReplayJob> {
  const created = await store.createReplayJob({
    id: newId("job", clock.now()),
    task: "dlq.replay",
    selection: { ids },
    ratePerSecond,
    canarySize: 0,
    canaryThreshold: 0.9,
    startAt,
    createdBy: "ops",
    note: null,
    now: clock.now(),
  });
  if (!created.ok) throw new Error(`job refused: ${created.busy.job.id} holds its endpoint`);
  return created.job;
}

/** Waits (real time) until the job satisfies `predicate`; fails after twenty seconds. */
export async function untilJob(
  store: Store,
  id: string,
  predicate: (job: ReplayJob) => boolean,
): Promise<ReplayJob> {
  let job: ReplayJob | null = null;
  await vi.waitFor(
    async () => {
      job = await store.getReplayJob(id);
      expect(job && predicate(job), JSON.stringify(job)).toBe(true);
    },
    { ...WAIT, interval: 20 },
  );
  return job!;
}

/** A store of its own (SQLite, in a fresh directory), closed and removed by `cleanup`. */
export async function aSqliteStore(cleanup: Cleanup): Promise<SqliteStore> {
  const dir = await mkdtemp(join(tmpdir(), "hookline-runner-"));
  const store = new SqliteStore({ path: join(dir, "hookline.db"), synchronous: "normal" });
  cleanup.push(
    () => rm(dir, { recursive: true, force: true }),
    () => store.close(),
  );
  return store;
}
