/**
 * Deleting an endpoint on PostgreSQL while a bulk replay job that was made before, but had not
 * taken its records yet, takes them and queues a replay to it. The deletion held the jobs with
 * records of the endpoint to replay, but this one had none yet; the queueing then committed between
 * the deletion's removal of the records' history and of the records themselves, so the replay's
 * history line was left behind for good, its delivery went with the endpoint, and the job waited
 * for that replay's result for ever, never finishing (nor ever pruned). The race is forced: an
 * admin connection holds one of the endpoint's attempts, so the deletion stops before the records.
 */
import { expect, it } from "vitest";
import { nextJobStep } from "../../src/dlq/job-step.js";
import { newId } from "../../src/ids.js";
import { aNewJob, deadLetter } from "./behaviour/dlq-fixtures.js";
import { claimAll, HOUR, SECOND, seedApp, T0 } from "./behaviour/fixtures.js";
import { useCleanup } from "../support/cleanup.js";
import { aStoreToRace, BLOCKED_BY, waitForPid } from "../support/postgres.js";

const cleanup = useCleanup();

it("a job that takes a record of an endpoint being deleted skips it and finishes", async () => {
  const { schema, store, admin, watch, adminPid } = await aStoreToRace(cleanup);

  const { app, endpoints } = await seedApp(store);
  const gone = endpoints[0]!.id;
  const record = await deadLetter(store, app.id, { endpointId: gone, at: T0 + SECOND });
  const now = T0 + HOUR;
  const runner = "rnr_a";
  const job = await aNewJob(store, {
    id: newId("job", now),
    task: "dlq.replay",
    selection: { ids: [record.id] },
    ratePerSecond: 5,
    canarySize: 0,
    canaryThreshold: 0.9,
    startAt: now,
    createdBy: "ops",
    note: null,
    now,
  });
  await store.claimReplayJobs({ now, leaseUntil: now + HOUR, limit: 1, runner });

  // Hold the endpoint's attempt: the deletion stops past the jobs it holds, before the records.
  await admin.query("BEGIN");
  await admin.query(`SELECT id FROM ${schema}.attempts WHERE endpoint_id = $1 FOR UPDATE`, [gone]);
  const deleting = store.deleteEndpoint(app.id, gone);
  const deletingPid = await waitForPid(watch, BLOCKED_BY, [adminPid]);

  // Now the job takes its records and queues.
  await store.prepareReplayJob(job.id, now);
  let queued = false;
  const queueing = store
    .enqueueJobReplays({
      jobId: job.id,
      runner,
      limit: 1,
      now,
      abandonAfter: null,
      newDeliveryId: () => newId("dlv", now),
    })
    .finally(() => (queued = true));
  // The queueing either ends, or waits for the deletion; then the deletion goes on.
  for (let waited = 0; !queued && waited < 20_000; waited += 10) {
    const { rows } = await watch.query(BLOCKED_BY, [deletingPid]);
    if (rows.length > 0) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  await admin.query("COMMIT");
  await deleting;
  await queueing;

  expect(await claimAll(store, now)).toEqual([]);
  const history = await admin.query(
    `SELECT action FROM ${schema}.dead_letter_events WHERE dead_letter_id = $1`,
    [record.id],
  );
  expect(history.rows).toEqual([]);
  const after = (await store.getReplayJob(job.id))!;
  expect(nextJobStep(after, 10)).toMatchObject({ kind: "finish", state: "completed" });
});
