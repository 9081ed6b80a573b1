/**
 * hookline stops while its bulk replay job runner is taking up a due job: the claim is on its way
 * to the store when stop begins. The runner must let go of what that claim takes before stop is
 * done: on PostgreSQL the job was left held by a runner that no longer ran, so no other process
 * took it up until its lease ran out a minute later (the hand-back reached a closed pool, and the
 * log said 'taking up replay jobs failed; trying again in 1 s' after the stop). On SQLite the
 * next start takes up every running job anyway, but the runner's hand-back and its next look
 * reached a database already closed. Now the job is handed back, on both, before stop is done,
 * and the runner calls the store no more.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ReplayJobRunner, type ReplayRunnerDeps } from "../../src/dlq/runner.js";
import { EngineEvents } from "../../src/engine/events.js";
import { SignallingControl } from "../../src/engine/signalling.js";
import { PostgresStore } from "../../src/store/postgres/store.js";
import type { Store } from "../../src/store/port.js";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { useCleanup, tempDir, type Cleanup } from "../support/cleanup.js";
import { FakeClock } from "../support/fake-clock.js";
import { holdFirstAnswer } from "../support/held-store-call.js";
import { aSharedStore, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { aJob, LEASE_MS, POLL_MS } from "../support/replay-runner.js";

const MISSING = ["dlq_00000000000000000000000001", "dlq_00000000000000000000000002"];

/** One way of keeping the data: the store to run on, and the same data opened again. */
interface Place {
  open(): Promise<Store>;
  openAgain(): Promise<Store>;
  /** The runner's settings there, as app.ts sets them. */
  settings: ReplayRunnerDeps["settings"];
}

function onSqlite(cleanup: Cleanup): Place {
  const path = join(tempDir(cleanup, "hookline-runner-stop-"), "hookline.db");
  const open = async () => {
    const store = new SqliteStore({ path, synchronous: "normal" });
    cleanup.push(() => store.close());
    return store;
  };
  return { open, openAgain: open, settings: { maxReplays: 0, leaseMs: LEASE_MS } };
}

function onPostgres(cleanup: Cleanup): Place {
  const schema = freshSchemaName();
  return {
    open: () => aSharedStore(cleanup, schema),
    openAgain: async () => {
      const store = await PostgresStore.open({
        connectionString: TEST_DATABASE_URL,
        schema,
        poolSize: 4,
      });
      cleanup.push(() => store.close());
      return store;
    },
    settings: { maxReplays: 0, leaseMs: LEASE_MS, takeOverOnStart: false, sharedPollMs: POLL_MS },
  };
}

/** `store`, noting the operations called on it once `closed()` says it is closed. */
function watched(store: Store, closed: () => boolean): { store: Store; late: string[] } {
  const late: string[] = [];
  const proxy = new Proxy(store, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (closed()) late.push(String(prop));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, late };
}

describe.each([
  ["SQLite", onSqlite],
  ["PostgreSQL", onPostgres],
])("on %s", (_name, where) => {
  const cleanup = useCleanup();

  it("lets go of a job its claim under way at stop took, before the store closes", async () => {
    const place = where(cleanup);
    const store = await place.open();
    const clock = new FakeClock();
    const job = await aJob(store, clock, MISSING);
    // The claim takes the job in the store; the runner hears of it only once the test says so.
    const held = holdFirstAnswer(store, "claimReplayJobs");
    let closed = false;
    const seen = watched(held.store, () => closed);
    const errors: string[] = [];
    const runner = new ReplayJobRunner({
      store: seen.store,
      engine: new SignallingControl(null, null, () => "wkr_test", { warn: () => {} }),
      events: new EngineEvents(),
      clock,
      settings: place.settings,
      logger: { info: () => {}, error: (_o, msg) => errors.push(msg) },
    });
    await runner.start();
    await held.reached;

    // hookline stops as app.ts does it (the runner, then later the store) during that claim.
    const stopped = runner.stop();
    held.release();
    await stopped;
    closed = true;
    await store.close();
    // Time for whatever the runner still had going to reach the store.
    await new Promise((r) => setTimeout(r, 100));
    expect(seen.late).toEqual([]);
    expect(errors).toEqual([]);

    // Handed back: the next look (another process's, or the next start's) takes it up at once.
    const again = await place.openAgain();
    const now = clock.now();
    const next = { now, leaseUntil: now + LEASE_MS, limit: 1, runner: "rnr_next" };
    expect((await again.claimReplayJobs(next)).map((j) => j.id)).toEqual([job.id]);
  });
});
