/**
 * Deleting an endpoint on PostgreSQL while a bulk replay job is queueing a replay to it. The
 * deletion counts the job's replays still out to the endpoint as withdrawn (they will never bring
 * a result); a replay queued by a transaction that commits while the deletion runs must be counted
 * too, or the job waits for its result for ever. The race is forced: an admin connection holds a
 * lock on the job's next record, so queueing stops after queueing the replay to the endpoint, and
 * the endpoint is deleted while it waits.
 */
import { expect, it } from "vitest";
import { nextJobStep } from "../../src/dlq/job-step.js";
import { newId } from "../../src/ids.js";
import { aPreparedReplayJob, deadLetter, replayOutcome } from "./behaviour/dlq-fixtures.js";
import { claimAll, HOUR, SECOND, seedApp, T0 } from "./behaviour/fixtures.js";
import { useCleanup } from "../support/cleanup.js";
import { aStoreToRace, BLOCKED_BY, waitForPid } from "../support/postgres.js";

const cleanup = useCleanup();

it("a replay queued to an endpoint deleted meanwhile counts as withdrawn, and the job finishes", async () => {
  const { schema, store, admin, watch, adminPid } = await aStoreToRace(cleanup);

  const { app, endpoints } = await seedApp(store, [{}, {}]);
  const [gone, kept] = endpoints.map((e) => e.id) as [string, string];
  const a = await deadLetter(store, app.id, { endpointId: gone, at: T0 + SECOND });
  const b = await deadLetter(store, app.id, { endpointId: kept, at: T0 + 2 * SECOND });
  const now = T0 + HOUR;
  const runner = "rnr_a";
  const job = await aPreparedReplayJob(store, [a.id, b.id], now, runner);

  // Hold b's record: queueing stops after queueing a's replay, before it commits.
  await admin.query("BEGIN");
  await admin.query(`SELECT id FROM ${schema}.dead_letters WHERE id = $1 FOR UPDATE`, [b.id]);
  const queueing = store.enqueueJobReplays({
    jobId: job.id,
    runner,
    limit: 2,
    now,
    abandonAfter: null,
    newDeliveryId: () => newId("dlv", now),
  });
  const queueingPid = await waitForPid(watch, BLOCKED_BY, [adminPid]);
  const deleting = store.deleteEndpoint(app.id, gone);
  await waitForPid(watch, BLOCKED_BY, [queueingPid]);
  await admin.query("COMMIT");
  expect((await queueing).queued.map((q) => q.deadLetterId)).toEqual([a.id, b.id]);
  await deleting;

  const replays = (await claimAll(store, now)).filter((d) => d.origin === "replay");
  expect(replays.map((d) => d.endpointId)).toEqual([kept]);
  await store.recordAttempts([replayOutcome(replays[0]!, now + SECOND, true)]);
  const after = (await store.getReplayJob(job.id))!;
  expect(after.progress).toMatchObject({ total: 2, queued: 2, succeeded: 1, withdrawn: 1 });
  expect(nextJobStep(after, 10)).toMatchObject({ kind: "finish", state: "completed" });
});
