/**
 * A bulk replay takes open records only: "one a person resolved meanwhile stays so" (the job's
 * queueing, and runbook step 5). On PostgreSQL the job reads the record, then moves it to
 * `replaying` in a later statement of the same transaction. A person's resolve that commits in
 * between must make the job skip the record. The race is forced: an admin connection holds the
 * endpoints table, so the job's queueing stops after it read the record (at its look at whether
 * the endpoint is disabled), and the person resolves the record while it waits.
 */
import { expect, it } from "vitest";
import { newId } from "../../src/ids.js";
import { aPreparedReplayJob, deadLetter } from "../store/behaviour/dlq-fixtures.js";
import { claimAll, HOUR, seedApp, T0 } from "../store/behaviour/fixtures.js";
import { useCleanup } from "../support/cleanup.js";
import { aStoreToRace, BLOCKED_BY, waitForPid } from "../support/postgres.js";

const cleanup = useCleanup();

it("a record a person resolves while the job is queueing it is skipped, not replayed", async () => {
  const { schema, store, admin, watch, adminPid } = await aStoreToRace(cleanup);

  const { app } = await seedApp(store);
  const record = await deadLetter(store, app.id);
  const now = T0 + HOUR;
  const job = await aPreparedReplayJob(store, [record.id], now, "rnr_a");

  await admin.query("BEGIN");
  await admin.query(`LOCK TABLE ${schema}.endpoints IN ACCESS EXCLUSIVE MODE`);
  const queueing = store.enqueueJobReplays({
    jobId: job.id,
    runner: "rnr_a",
    limit: 1,
    now,
    abandonAfter: null,
    newDeliveryId: () => newId("dlv", now),
  });
  // The job has read the record (open) and waits at its endpoint.
  await waitForPid(watch, BLOCKED_BY, [adminPid]);

  const resolved = await store.resolveDeadLetter({
    id: record.id,
    actor: "ops",
    note: "delivered by hand, INC-1234",
    now,
  });
  expect(resolved.ok).toBe(true);
  await admin.query("COMMIT");
  const step = await queueing;

  // The person's decision stands: nothing is queued, the record stays resolved.
  expect({ queued: step.queued.length, skipped: step.skipped }).toEqual({ queued: 0, skipped: 1 });
  expect((await store.getDeadLetter(record.id))!.state).toBe("resolved");
  expect((await claimAll(store, now)).filter((d) => d.origin === "replay")).toEqual([]);
});
