/**
 * A bulk replay job whose start failed (taking its selection hit a database error) is tried again
 * by the runner that holds it. On SQLite nothing else would look at it: the runner only looks for
 * jobs when woken or when a scheduled one is due, and the job stays running under its lease.
 */
import { expect, it } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { useCleanup } from "../support/cleanup.js";
import { holdFirstCall } from "../support/held-store-call.js";
import { aJob, aLoneRunner, aSqliteStore, untilJob } from "../support/replay-runner.js";

const MISSING = ["dlq_00000000000000000000000001", "dlq_00000000000000000000000002"];

const cleanup = useCleanup();

it("takes the selection again after it failed once, and the job completes", async () => {
  const store = await aSqliteStore(cleanup);
  const clock = new FakeClock();
  const held = holdFirstCall(store, "prepareReplayJob");
  const errors: string[] = [];
  const runner = await aLoneRunner(held.store, clock, cleanup, {
    logger: { info: () => {}, error: (_o, msg) => errors.push(msg) },
  });

  const job = await aJob(store, clock, MISSING);
  runner.wake();
  await held.reached;
  held.release(new Error("disk I/O error"));
  const done = await untilJob(store, job.id, (j) => j.state === "completed");
  expect(done.progress).toMatchObject({ total: 2, skipped: 2 });
  expect(errors.length).toBeGreaterThan(0);
});
