/**
 * In a fleet each endpoint's circuit is its owner's, which writes every change to the store. A
 * process whose engine still has a circuit of an endpoint it no longer owns (declared dead, it
 * has not noticed yet) holds an old reading of it: a job's runner there must judge the job by
 * the store, not stop it on a circuit the owner has closed since.
 */
import { expect, it } from "vitest";
import type { EngineControl } from "../../src/engine/control.js";
import { deadLetter, replayOutcome } from "../store/behaviour/dlq-fixtures.js";
import { claimAll, seedApp } from "../store/behaviour/fixtures.js";
import { FakeClock } from "../support/fake-clock.js";
import { useCleanup } from "../support/cleanup.js";
import { aSharedStore } from "../support/postgres.js";
import { aRunner, untilJob } from "../support/replay-runner.js";

const cleanup = useCleanup();

it("a job whose canary passed is not stopped by a circuit this process read before", async () => {
  const store = await aSharedStore(cleanup);
  const clock = new FakeClock();
  const { app, endpoints } = await seedApp(store);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await deadLetter(store, app.id)).id);
  const created = await store.createReplayJob({
    id: "job_fleet",
    task: "dlq.replay",
    selection: { ids },
    ratePerSecond: 1,
    canarySize: 1,
    canaryThreshold: 0.9,
    startAt: clock.now(),
    createdBy: "ops",
    note: null,
    now: clock.now(),
  });
  expect(created.ok).toBe(true);
  // This engine's circuit of the endpoint opened after the job started; its owner has closed it
  // since (the store has no open circuit).
  const stale = {
    state: "open" as const,
    since: clock.now() + 500,
    reason: "5 failures in a row",
    nextProbeAt: clock.now() + 60_000,
    reopenCount: 0,
  };
  const engine: EngineControl = {
    wake: () => undefined,
    invalidateEndpoint: () => undefined,
    invalidateApplication: () => undefined,
    callerWaited: () => undefined,
    endpointStatus: (id) =>
      id === endpoints[0]!.id
        ? {
            limit: 1,
            effectiveLimit: 1,
            inFlight: 0,
            queued: 0,
            p99LatencyMs: null,
            circuit: stale,
          }
        : null,
    deliveryBudget: () => null,
    intake: () => null,
  };
  const runner = await aRunner(store, clock, cleanup, { engine, pollMs: 50 });
  runner.wake();
  await untilJob(store, "job_fleet", (j) => j.progress.queued === 1);
  const [canary] = await claimAll(store, clock.now());
  await store.recordAttempts([replayOutcome(canary!, clock.now(), true)]);
  runner.wake();
  await untilJob(store, "job_fleet", (j) => j.stage === "rest");
  clock.advance(1_000);
  const job = await untilJob(
    store,
    "job_fleet",
    (j) => j.state !== "running" || j.reason?.startsWith("waiting") === true,
  );
  expect(job.state).toBe("running");
  expect(job.reason).toBe("waiting for results: 1 replays out at once");
});
