/**
 * Deleting an endpoint on PostgreSQL while the outcome of a replay to it is being recorded.
 * Queueing a job's replays, cancelling the job and deleting an endpoint take the job's row first,
 * then deliveries and records; recording took the delivery and the record first and the job last
 * (and the endpoint after, for a 410), while the deletion took the endpoint first, skipped
 * cancelled jobs, and took the records before the deliveries. So the two could wait on each other
 * until PostgreSQL broke the deadlock (about a second later, then the loser ran again); so could
 * giving up on a delivery, which took the delivery, then the endpoint's dead-letter depth that
 * the deletion took first. Now both take the endpoint first (recording, every endpoint of a batch
 * that is more than plain successes and retries), then jobs (of any state), records, deliveries.
 *
 * Each race is forced: an admin connection holds a row that both come to, in a chosen order. The
 * store's connections here wait a minute before PostgreSQL looks for a deadlock, so one would
 * stay in place; the test looks for it itself, as two backends each blocked by the other.
 */
import type pg from "pg";
import { expect, it } from "vitest";
import { newId } from "../../src/ids.js";
import type { ClaimedDelivery, DeliveryOutcome, RecordedOutcomes } from "../../src/store/port.js";
import { PostgresStore } from "../../src/store/postgres/store.js";
import {
  aPreparedReplayJob,
  deadLetter,
  replayClaimed,
  replayOutcome,
} from "./behaviour/dlq-fixtures.js";
import {
  accept,
  aFailedAttempt,
  claimAll,
  HOUR,
  outcomeFor,
  SECOND,
  seedApp,
  T0,
} from "./behaviour/fixtures.js";
import { useCleanup } from "../support/cleanup.js";
import {
  BLOCKED_BY,
  dropSchema,
  freshSchemaName,
  raceConnections,
  TEST_DATABASE_URL,
  waitForPid,
} from "../support/postgres.js";

const cleanup = useCleanup();

/** A backend other than `$2` blocked by `$1` or by `$2`. */
const BLOCKED_BY_EITHER = `SELECT pid FROM pg_stat_activity WHERE pid <> $2
  AND ($1::int = ANY(pg_blocking_pids(pid)) OR $2::int = ANY(pg_blocking_pids(pid)))`;

/** The test database, its sessions told to leave a deadlock in place for a minute. */
function patientUrl(): string {
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set("options", "-c deadlock_timeout=60s");
  return url.toString();
}

/**
 * A store on a fresh schema whose sessions leave a deadlock in place, the connections that force
 * the race, and one endpoint with one dead-letter record; all dropped by `cleanup`.
 */
async function aRecordToRace() {
  const schema = freshSchemaName();
  const store = await PostgresStore.open({ connectionString: patientUrl(), schema, poolSize: 4 });
  cleanup.push(
    () => dropSchema(schema),
    () => store.close(),
  );
  const race = await raceConnections(cleanup);
  const { app, endpoints } = await seedApp(store);
  const endpointId = endpoints[0]!.id;
  const record = await deadLetter(store, app.id, { endpointId, at: T0 + SECOND });
  return { store, schema, ...race, app, endpointId, record, now: T0 + HOUR };
}

/** A bulk replay job of the race's record, its one replay queued and claimed (sent). */
async function aJobReplayInFlight(r: Awaited<ReturnType<typeof aRecordToRace>>) {
  const { store, record, now } = r;
  const runner = "rnr_a";
  const job = await aPreparedReplayJob(store, [record.id], now, runner);
  const queued = await store.enqueueJobReplays({
    jobId: job.id,
    runner,
    limit: 1,
    now,
    abandonAfter: null,
    newDeliveryId: () => newId("dlv", now),
  });
  expect(queued.queued).toHaveLength(1);
  const [replay] = await claimAll(store, now);
  return { job, replay: replay! };
}

/**
 * The race: the admin holds a row (`hold`); `first` (recording `outcome`, or deleting the
 * endpoint) starts and stops on it, the other starts and stops too, then the admin lets go. What
 * recording kept, unless the two deadlocked.
 */
async function race(
  r: Awaited<ReturnType<typeof aRecordToRace>>,
  first: "recording" | "deleting",
  hold: string,
  values: unknown[],
  outcome: DeliveryOutcome,
): Promise<RecordedOutcomes> {
  const { store, admin, watch, adminPid, app, endpointId } = r;
  await admin.query("BEGIN");
  await admin.query(hold, values);
  // Each starts when asked, and says which backend it runs on once that backend waits.
  let recording: Promise<RecordedOutcomes> | undefined;
  let deleting: Promise<void> | undefined;
  const start = {
    recording: () => void (recording = store.recordAttempts([outcome])),
    deleting: () => void (deleting = store.deleteEndpoint(app.id, endpointId)),
  };
  start[first]();
  const firstPid = await waitForPid(watch, BLOCKED_BY, [adminPid]);
  start[first === "recording" ? "deleting" : "recording"]();
  const secondPid = await waitForPid(watch, BLOCKED_BY_EITHER, [adminPid, firstPid]);
  await admin.query("COMMIT");
  const [recordingPid, deletingPid] =
    first === "recording" ? [firstPid, secondPid] : [secondPid, firstPid];
  const [recorded] = await bothUnlessDeadlocked(
    watch,
    [recording!, recordingPid],
    [deleting!, deletingPid],
  );
  return recorded;
}

/** The receiver answered the replay 410 Gone: it fails, and disables the endpoint. */
function goneOutcome(d: ClaimedDelivery, at: number): DeliveryOutcome {
  return {
    ...replayOutcome(d, at, false),
    attempt: aFailedAttempt(at, { trigger: "replay", status: 410, outcome: "permanent" }),
    next: { kind: "dead", failureClass: "permanent", reason: "the receiver answered 410 Gone" },
    disableEndpoint: "the receiver answered 410 Gone",
  };
}

it.each([
  { answered: "200", outcome: (d: ClaimedDelivery, at: number) => replayOutcome(d, at, true) },
  { answered: "410, which disables the endpoint", outcome: goneOutcome },
])(
  "recording a job's replay (answered $answered) and deleting its endpoint at once: one waits for the other",
  async ({ answered, outcome }) => {
    const r = await aRecordToRace();
    const { store, endpointId, record, now } = r;
    const { job, replay } = await aJobReplayInFlight(r);

    // Hold the job's item: recording the replay's outcome stops just before it. The deletion
    // then waits too: on the recording (fixed), or on the admin's item (before).
    const recorded = await race(
      r,
      "recording",
      `SELECT 1 FROM ${r.schema}.replay_job_items WHERE delivery_id = $1 FOR UPDATE`,
      [replay.id],
      outcome(replay, now + SECOND),
    );
    // The recording went first and counted its result; the deletion then took everything.
    expect(recorded.kept).toEqual([replay.id]);
    const ok = answered === "200";
    expect(await store.getReplayJob(job.id)).toMatchObject({
      progress: { total: 1, queued: 1, succeeded: ok ? 1 : 0, failed: ok ? 0 : 1, withdrawn: 0 },
    });
    expect(await store.getEndpoint(endpointId)).toBeNull();
    expect(await store.getDeadLetter(record.id)).toBeNull();
  },
);

it("recording a cancelled job's replay and deleting its endpoint at once: one waits for the other", async () => {
  const r = await aRecordToRace();
  const { store, endpointId, now } = r;
  const { job, replay } = await aJobReplayInFlight(r);
  // Cancelling takes back replays not yet sent; this one was, and its result still comes.
  expect(await store.cancelReplayJob({ id: job.id, actor: "ops", now })).toMatchObject({
    ok: true,
  });

  // Hold the replay's delivery: recording stops there, holding the job. The deletion then waits
  // on the recording's job (fixed), or, before, on it after taking the job's item.
  const recorded = await race(
    r,
    "recording",
    `SELECT 1 FROM ${r.schema}.deliveries WHERE id = $1 FOR UPDATE`,
    [replay.id],
    replayOutcome(replay, now + SECOND, true),
  );
  expect(recorded.kept).toEqual([replay.id]);
  expect(await store.getReplayJob(job.id)).toMatchObject({
    state: "cancelled",
    progress: { succeeded: 1, withdrawn: 0 },
  });
  expect(await store.getEndpoint(endpointId)).toBeNull();
});

it("recording a single replay and deleting its endpoint at once: one waits for the other", async () => {
  const r = await aRecordToRace();
  const { store, endpointId, record, now } = r;
  const replay = await replayClaimed(store, record, now);

  // Hold the record. The deletion comes to it first and is first in line for it; recording comes
  // to it next (fixed), or, before, took the replay's delivery and then waited behind the deletion.
  const recorded = await race(
    r,
    "deleting",
    `SELECT 1 FROM ${r.schema}.dead_letters WHERE id = $1 FOR UPDATE`,
    [record.id],
    replayOutcome(replay, now + SECOND, true),
  );
  // The deletion went first: the replay's delivery went with it, so nothing is recorded.
  expect(recorded.kept).toEqual([]);
  expect(await store.getEndpoint(endpointId)).toBeNull();
  expect(await store.getDeadLetter(record.id)).toBeNull();
});

it("giving up on a delivery and deleting its endpoint at once: one waits for the other", async () => {
  const r = await aRecordToRace();
  const { store, app, endpointId, record, now } = r;
  // Two more messages: one not yet due, whose delivery the admin holds, and one given up on.
  await accept(store, app.id, { now, dueAt: now + HOUR });
  await accept(store, app.id, { now });
  const [doomed] = await claimAll(store, now);
  const gaveUp = outcomeFor(doomed!, {
    at: now + SECOND,
    attempt: aFailedAttempt(now + SECOND),
    next: { kind: "dead", failureClass: "exhausted", reason: "gave up" },
  });

  // The deletion deletes the open record (counting it off the endpoint's dead-letter depth), then
  // stops at the held delivery, before the one given up on. Recording the give-up then takes its
  // delivery and waits for the depth the deletion holds (before), or waits for the endpoint the
  // deletion holds, having taken nothing (fixed).
  const recorded = await race(
    r,
    "deleting",
    `SELECT 1 FROM ${r.schema}.deliveries WHERE endpoint_id = $1 AND state = 'pending'
      FOR UPDATE`,
    [r.endpointId],
    gaveUp,
  );
  expect(recorded.kept).toEqual([]);
  expect(await store.getDeadLetter(record.id)).toBeNull();
  expect(await store.getEndpoint(endpointId)).toBeNull();
});

/**
 * Both results, failing the test if instead the two backends come to block each other (the
 * backends are then ended, so that nothing is left waiting).
 */
async function bothUnlessDeadlocked<A, B>(
  watch: pg.Client,
  [a, aPid]: [Promise<A>, number],
  [b, bPid]: [Promise<B>, number],
): Promise<[A, B]> {
  const settled = Promise.all([a, b]);
  const first = await Promise.race([
    settled.then(() => "done" as const),
    untilEachBlocksTheOther(watch, aPid, bPid, settled),
  ]);
  if (first !== "done") {
    await watch.query("SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid", [
      [aPid, bPid],
    ]);
    await settled.catch(() => undefined);
  }
  expect(first).toBe("done");
  return settled;
}

/** Resolves with "deadlock" once each backend is blocked by the other; stops once `done` does. */
async function untilEachBlocksTheOther(
  watch: pg.Client,
  a: number,
  b: number,
  done: Promise<unknown>,
): Promise<"deadlock" | "done"> {
  let over = false;
  void done.finally(() => (over = true)).catch(() => undefined);
  while (!over) {
    const { rows } = await watch.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE (pid = $1 AND $2::int = ANY(pg_blocking_pids(pid)))
          OR (pid = $2 AND $1::int = ANY(pg_blocking_pids(pid)))`,
      [a, b],
    );
    if (rows[0]!.n === 2) return "deadlock";
    await new Promise((r) => setTimeout(r, 20));
  }
  return "done";
}
