/** Bulk replay jobs: claiming, taking the selection once, queueing each record at most once. */
import { describe, expect, it } from "vitest";
import type { ReplaySelection } from "../../../src/domain/types.js";
import { nextJobStep } from "../../../src/dlq/job-step.js";
import { newId } from "../../../src/ids.js";
import type { NewReplayJob, ReplayJobUpdate, Store } from "../../../src/store/port.js";
import {
  claimAll,
  HOUR,
  ROOMY_LADDER,
  MINUTE,
  outcomeFor,
  SECOND,
  seedApp,
  T0,
  type StoreUnderTest,
} from "./fixtures.js";
import { aNewJob, deadLetter, replayOutcome } from "./dlq-fixtures.js";

function aJob(selection: ReplaySelection, overrides: Partial<NewReplayJob> = {}): NewReplayJob {
  return {
    id: newId("job"),
    task: "dlq.replay",
    selection,
    ratePerSecond: 5,
    canarySize: 2,
    canaryThreshold: 0.9,
    startAt: T0 + HOUR,
    createdBy: "ops",
    note: "after the outage",
    now: T0 + HOUR,
    ...overrides,
  };
}

/** The runner the tests take jobs up as, unless they say otherwise. */
const RUNNER = "rnr_a";

/** Takes due jobs up as `runner`, leased for an hour from `now`. */
function takeUp(store: Store, runner = RUNNER, now = T0 + HOUR) {
  return store.claimReplayJobs({ now, leaseUntil: now + HOUR, limit: 1, runner });
}

/** Queues the job's next `limit` replays as `runner`. */
function queue(store: Store, jobId: string, limit: number, runner = RUNNER, now = T0 + HOUR) {
  return store.enqueueJobReplays({
    jobId,
    limit,
    now,
    abandonAfter: null,
    newDeliveryId: () => newId("dlv"),
    runner,
  });
}

export function replayJobBehaviour(t: StoreUnderTest): void {
  describe("replay jobs", () => {
    it("a scheduled job is claimed once due, and by one claimer until its lease ends", async () => {
      const job = await aNewJob(t.store, aJob({ endpointId: "ep_x" }, { startAt: T0 + 2 * HOUR }));
      expect(job).toMatchObject({
        state: "scheduled",
        stage: "canary",
        createdBy: "ops",
        note: "after the outage",
        progress: { total: null, queued: 0, succeeded: 0, failed: 0, skipped: 0, withdrawn: 0 },
        startedAt: null,
        leaseUntil: null,
      });
      expect(await t.store.nextReplayJobAt()).toBe(T0 + 2 * HOUR);
      const claim = (now: number, runner = RUNNER) =>
        t.store.claimReplayJobs({ now, leaseUntil: now + MINUTE, limit: 10, runner });
      expect(await claim(T0 + HOUR)).toEqual([]);
      const [taken] = await claim(T0 + 2 * HOUR);
      // Its lease is read back with it: the API says whether anyone holds a running job.
      expect(taken).toMatchObject({
        id: job.id,
        state: "running",
        startedAt: T0 + 2 * HOUR,
        leaseUntil: T0 + 2 * HOUR + MINUTE,
      });
      expect(await t.store.nextReplayJobAt()).toBeNull();
      expect(await claim(T0 + 2 * HOUR + SECOND)).toEqual([]);
      // Its holder went away: once the lease has run out, another may take it up.
      expect((await claim(T0 + 2 * HOUR + 2 * MINUTE, "rnr_b")).map((j) => j.id)).toEqual([job.id]);
      await t.store.releaseReplayJobs();
      expect((await claim(T0 + 2 * HOUR + 2 * MINUTE)).map((j) => j.id)).toEqual([job.id]);
    });

    it("a due job no runner has room for is told why once, and taking it up clears it", async () => {
      const due = await aNewJob(t.store, aJob({ endpointId: "ep_x" }));
      const later = await aNewJob(
        t.store,
        aJob({ endpointId: "ep_y" }, { startAt: T0 + 2 * HOUR }),
      );
      const reason = "waiting for a free slot: a runner is full";
      const note = (now: number, why = reason) =>
        t.store.noteReplayJobsWaiting({ now, reason: why });

      expect(await note(T0 + HOUR)).toBe(T0 + 2 * HOUR);
      expect(await t.store.getReplayJob(due.id)).toMatchObject({
        state: "scheduled",
        reason,
        updatedAt: T0 + HOUR,
      });
      expect((await t.store.getReplayJob(later.id))!.reason).toBeNull();
      // A runner looking again (the same or another) writes nothing: the wait began earlier.
      expect(await note(T0 + HOUR + MINUTE, "waiting for a free slot: another")).toBe(
        T0 + 2 * HOUR,
      );
      expect(await t.store.getReplayJob(due.id)).toMatchObject({ reason, updatedAt: T0 + HOUR });
      // Once the later one is due it is told too, and none is still to come.
      expect(await note(T0 + 2 * HOUR)).toBeNull();
      expect((await t.store.getReplayJob(later.id))!.reason).toBe(reason);

      const now = T0 + 2 * HOUR;
      const taken = await t.store.claimReplayJobs({
        now,
        leaseUntil: now + MINUTE,
        limit: 10,
        runner: RUNNER,
      });
      const byStart = taken.sort((a, b) => a.startAt - b.startAt);
      expect(byStart.map((j) => [j.id, j.state, j.reason])).toEqual([
        [due.id, "running", null],
        [later.id, "running", null],
      ]);
      expect((await t.store.getReplayJob(due.id))!.reason).toBeNull();
      // A running job taken up by another runner keeps what it waits for.
      const waiting = "waiting for the last 1 results";
      await t.store.updateReplayJob({
        id: due.id,
        runner: RUNNER,
        now,
        leaseUntil: now,
        reason: waiting,
      });
      const again = await t.store.claimReplayJobs({
        now: now + SECOND,
        leaseUntil: now + MINUTE,
        limit: 10,
        runner: "rnr_b",
      });
      expect(again.map((j) => [j.id, j.reason])).toEqual([[due.id, waiting]]);
      expect(await note(now + SECOND)).toBeNull();
      expect((await t.store.getReplayJob(due.id))!.reason).toBe(waiting);
    });

    it("refuses a job that may replay to an endpoint a scheduled or running job may", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      const [e1, e2] = endpoints.map((e) => e.id) as [string, string];
      const a = await deadLetter(t.store, app.id, { endpointId: e1, at: T0 + SECOND });
      const b = await deadLetter(t.store, app.id, { endpointId: e2, at: T0 + 2 * SECOND });
      const create = (selection: ReplaySelection) => t.store.createReplayJob(aJob(selection));
      const first = await aNewJob(t.store, aJob({ endpointId: e1 }));
      const busy = { ok: false, busy: { job: { id: first.id }, endpointId: e1 } };
      // Named, through its application, listed, or matched by a filter: all reach e1.
      expect(await create({ endpointId: e1 })).toMatchObject(busy);
      expect(await create({ appId: app.id })).toMatchObject(busy);
      expect(await create({ ids: [b.id, a.id] })).toMatchObject(busy);
      expect(await create({ failureClass: "exhausted" })).toMatchObject(busy);
      const other = await create({ ids: [b.id] });
      expect(other.ok).toBe(true);

      // Started, a job holds the endpoints of the records it has yet to finish with.
      await takeUp(t.store);
      await t.store.prepareReplayJob(first.id, T0 + HOUR);
      expect(await create({ ids: [a.id] })).toMatchObject(busy);
      await queue(t.store, first.id, 1);
      const [replay] = (await claimAll(t.store, T0 + HOUR)).filter((d) => d.endpointId === e1);
      await t.store.recordAttempts([replayOutcome(replay!, T0 + HOUR + SECOND, true)]);
      expect((await create({ endpointId: e1 })).ok).toBe(true);
    });

    it("at its start, a job chosen by filter skips the endpoints another job holds", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      const [e1, e2] = endpoints.map((e) => e.id) as [string, string];
      const a = await deadLetter(t.store, app.id, { endpointId: e1, at: T0 + SECOND });
      // Made while its application's only open record is on e1, so it does not stand in the way
      // of a job on e2; by its start, a record on e2 has joined its selection.
      const byApp = await aNewJob(t.store, aJob({ appId: app.id }));
      const onE2 = await aNewJob(t.store, aJob({ endpointId: e2 }, { startAt: T0 + 2 * HOUR }));
      await deadLetter(t.store, app.id, { endpointId: e2, at: T0 + 2 * SECOND });

      expect((await takeUp(t.store)).map((j) => j.id)).toEqual([byApp.id]);
      const started = await t.store.prepareReplayJob(byApp.id, T0 + HOUR);
      expect(started!.progress).toMatchObject({ total: 2, skipped: 1, queued: 0 });
      expect(started!.reason).toBe(
        `1 selected record skipped: replay job ${onE2.id} holds endpoint ${e2} ` +
          "(one bulk replay at a time per endpoint)",
      );
      const queued = await queue(t.store, byApp.id, 2);
      expect(queued.queued.map((q) => q.deadLetterId)).toEqual([a.id]);
      expect((await t.store.getReplayJob(byApp.id))!.progress).toMatchObject({ skipped: 1 });
    });

    it("of jobs made at once on one endpoint, one is made", async () => {
      for (const endpointId of ["ep_a", "ep_b", "ep_c"]) {
        const make = () => t.store.createReplayJob(aJob({ endpointId }));
        const made = await Promise.all([make(), make(), make(), make()]);
        expect(made.filter((m) => m.ok)).toHaveLength(1);
      }
    });

    it("takes its selection once: the open records matching it, oldest first", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      const [e1, e2] = endpoints.map((e) => e.id) as [string, string];
      const a = await deadLetter(t.store, app.id, { endpointId: e1, at: T0 + SECOND });
      await deadLetter(t.store, app.id, { endpointId: e2, at: T0 + 2 * SECOND });
      const c = await deadLetter(t.store, app.id, { endpointId: e1, at: T0 + 3 * SECOND });
      const resolved = await deadLetter(t.store, app.id, { endpointId: e1, at: T0 + 4 * SECOND });
      await t.store.resolveDeadLetter({ id: resolved.id, actor: "ops", note: "n", now: T0 });
      await deadLetter(t.store, app.id, { endpointId: e1, at: T0 + 5 * SECOND, cls: "permanent" });

      const job = await aNewJob(
        t.store,
        aJob({ endpointId: e1, failureClass: "exhausted", until: T0 + 4 * SECOND }),
      );
      await takeUp(t.store);
      expect((await t.store.prepareReplayJob(job.id, T0 + HOUR))!.progress.total).toBe(2);
      // Records dead-lettered later do not join a job already under way.
      await deadLetter(t.store, app.id, { endpointId: e1, at: T0 + 3 * SECOND + 1 });
      expect((await t.store.prepareReplayJob(job.id, T0 + HOUR))!.progress.total).toBe(2);
      const queued = await queue(t.store, job.id, 10);
      expect(queued.queued.map((q) => q.deadLetterId)).toEqual([a.id, c.id]);
      expect(queued).toMatchObject({ skipped: 0, remaining: 0 });
    });

    it("listed ids are taken in the order given, each once; ones not open are skipped", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      const [e1, e2] = endpoints as [(typeof endpoints)[0], (typeof endpoints)[0]];
      const a = await deadLetter(t.store, app.id, { endpointId: e1.id, at: T0 + SECOND });
      const b = await deadLetter(t.store, app.id, { endpointId: e1.id, at: T0 + 2 * SECOND });
      const gone = await deadLetter(t.store, app.id, { endpointId: e1.id, at: T0 + 3 * SECOND });
      await t.store.abandonDeadLetter({ id: gone.id, actor: "ops", note: "n", now: T0 });
      const off = await deadLetter(t.store, app.id, { endpointId: e2.id, at: T0 + 4 * SECOND });
      await t.store.updateEndpoint({ ...e2, disabled: true });
      const job = await aNewJob(
        t.store,
        aJob({ ids: [b.id, a.id, b.id, gone.id, off.id, "dlq_00000000000000000000000000"] }),
      );
      await takeUp(t.store);
      expect((await t.store.prepareReplayJob(job.id, T0 + HOUR))!.progress.total).toBe(5);
      const step = await queue(t.store, job.id, 1);
      expect(step.queued.map((q) => q.deadLetterId)).toEqual([b.id]);
      const rest = await queue(t.store, job.id, 5);
      expect(rest.queued.map((q) => q.deadLetterId)).toEqual([a.id]);
      expect(rest).toMatchObject({ skipped: 3, remaining: 0 });
      expect((await t.store.getReplayJob(job.id))!.progress).toMatchObject({
        total: 5,
        queued: 2,
        skipped: 3,
      });
      expect((await t.store.getDeadLetter(off.id))!.state).toBe("open");
      expect(await t.store.replayJobSkips(job.id)).toEqual([
        { detail: "the endpoint is disabled", records: 1 },
        { detail: "the record is abandoned", records: 1 },
        { detail: "the record no longer exists", records: 1 },
      ]);
    });

    it("queues each record at most once, however often or concurrently it is asked", async () => {
      const { app } = await seedApp(t.store);
      for (let i = 1; i <= 7; i++) await deadLetter(t.store, app.id, { at: T0 + i * SECOND });
      const job = await aNewJob(t.store, aJob({ appId: app.id }));
      await takeUp(t.store);
      // Two runners taking the same job up at once: each prepares and queues.
      await Promise.all([
        t.store.prepareReplayJob(job.id, T0 + HOUR),
        t.store.prepareReplayJob(job.id, T0 + HOUR),
      ]);
      const ask = () => queue(t.store, job.id, 3);
      const steps = await Promise.all([ask(), ask(), ask(), ask()]);
      const records = steps.flatMap((s) => s.queued.map((q) => q.deadLetterId));
      expect(records).toHaveLength(7);
      expect(new Set(records).size).toBe(7);
      expect((await ask()).queued).toEqual([]);
      const replays = (await claimAll(t.store, T0 + HOUR)).filter((d) => d.origin === "replay");
      expect(replays).toHaveLength(7);
    });

    it("counts its replays' outcomes as its results", async () => {
      const { app } = await seedApp(t.store);
      await deadLetter(t.store, app.id, { at: T0 + SECOND });
      await deadLetter(t.store, app.id, { at: T0 + 2 * SECOND });
      const job = await aNewJob(t.store, aJob({ appId: app.id }));
      await takeUp(t.store);
      await t.store.prepareReplayJob(job.id, T0 + HOUR);
      await queue(t.store, job.id, 2);
      const [ok, bad] = await claimAll(t.store, T0 + HOUR);
      await t.store.recordAttempts([
        replayOutcome(ok!, T0 + HOUR + SECOND, true),
        replayOutcome(bad!, T0 + HOUR + SECOND, false),
      ]);
      expect((await t.store.getReplayJob(job.id))!.progress).toMatchObject({
        total: 2,
        queued: 2,
        succeeded: 1,
        failed: 1,
      });
      const replayed = (await t.store.getDelivery(ok!.id))!.deadLetterId!;
      const history = (await t.store.getDeadLetterRecord(replayed))!.history;
      expect(history.map((h) => [h.action, h.actor, h.jobId])).toEqual([
        ["dead_lettered", "hookline", null],
        ["replay_requested", "ops", job.id],
        ["replayed", "ops", job.id],
      ]);
      expect(history[1]!.note).toBe(`bulk replay ${job.id}: after the outage`);
    });

    it("disabling the endpoint brings its held replays due; ended unsent, they are withdrawn", async () => {
      const { app, endpoints } = await seedApp(t.store);
      const ep = endpoints[0]!;
      await deadLetter(t.store, app.id, { at: T0 + SECOND });
      await deadLetter(t.store, app.id, { at: T0 + 2 * SECOND });
      const job = await aNewJob(t.store, aJob({ appId: app.id }));
      await takeUp(t.store);
      await t.store.prepareReplayJob(job.id, T0 + HOUR);
      await queue(t.store, job.id, 2);
      // Held for the circuit's probe, an hour off.
      await t.store.pauseEndpoint(ep.id, T0 + 2 * HOUR, ROOMY_LADDER);
      expect(await claimAll(t.store, T0 + HOUR + SECOND)).toEqual([]);

      const at = T0 + HOUR + 2 * SECOND;
      expect(await t.store.updateEndpoint({ ...ep, disabled: true, updatedAt: at })).toBe(true);
      const held = await claimAll(t.store, at);
      expect(held).toHaveLength(2);
      await t.store.recordAttempts(
        held.map((d) =>
          outcomeFor(d, {
            at,
            attempt: null,
            next: { kind: "dead", failureClass: "permanent", reason: "endpoint disabled" },
          }),
        ),
      );
      expect((await t.store.getReplayJob(job.id))!.progress).toMatchObject({
        queued: 2,
        succeeded: 0,
        failed: 0,
        withdrawn: 2,
      });
    });

    it("names the endpoints it has replays out to, until their results are in", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      const [e1, e2] = endpoints.map((e) => e.id).sort() as [string, string];
      for (const [i, endpointId] of [e1, e2, e1].entries()) {
        await deadLetter(t.store, app.id, { endpointId, at: T0 + (i + 1) * SECOND });
      }
      const job = await aNewJob(t.store, aJob({ appId: app.id }));
      await takeUp(t.store);
      await t.store.prepareReplayJob(job.id, T0 + HOUR);
      expect(await t.store.replayJobEndpointsOut(job.id)).toEqual([]);
      await queue(t.store, job.id, 3);
      expect(await t.store.replayJobEndpointsOut(job.id)).toEqual([
        { endpointId: e1, replays: 2 },
        { endpointId: e2, replays: 1 },
      ]);
      const replays = await claimAll(t.store, T0 + HOUR);
      await t.store.recordAttempts(
        replays
          .filter((d) => d.endpointId === e1)
          .map((d) => replayOutcome(d, T0 + HOUR + SECOND, true)),
      );
      expect(await t.store.replayJobEndpointsOut(job.id)).toEqual([{ endpointId: e2, replays: 1 }]);
    });

    it("the job's note is in the history of each record it replays, with the job's id", async () => {
      // Two jobs at once, so on two endpoints: one job at a time per endpoint.
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      const [e1, e2] = endpoints.map((e) => e.id) as [string, string];
      const noted = await deadLetter(t.store, app.id, { endpointId: e1, at: T0 + SECOND });
      const bare = await deadLetter(t.store, app.id, { endpointId: e2, at: T0 + 2 * SECOND });
      const withNote = await aNewJob(
        t.store,
        aJob({ ids: [noted.id] }, { note: "receiver redeployed, INC-1234" }),
      );
      const withoutNote = await aNewJob(t.store, aJob({ ids: [bare.id] }, { note: null }));
      const now = T0 + HOUR;
      await t.store.claimReplayJobs({ now, leaseUntil: now + HOUR, limit: 2, runner: RUNNER });
      for (const job of [withNote, withoutNote]) {
        await t.store.prepareReplayJob(job.id, T0 + HOUR);
        expect((await queue(t.store, job.id, 1)).queued).toHaveLength(1);
      }
      const requested = async (id: string) =>
        (await t.store.getDeadLetterRecord(id))!.history.find(
          (h) => h.action === "replay_requested",
        );
      expect(await requested(noted.id)).toMatchObject({
        jobId: withNote.id,
        note: `bulk replay ${withNote.id}: receiver redeployed, INC-1234`,
      });
      expect(await requested(bare.id)).toMatchObject({
        jobId: withoutNote.id,
        note: `bulk replay ${withoutNote.id}`,
      });
    });

    it("moves on to the rest, finishes with a reason, and is no longer updated once ended", async () => {
      const job = await aNewJob(t.store, aJob({ appId: "app_x" }));
      await takeUp(t.store);
      const lease = { id: job.id, now: T0 + HOUR, leaseUntil: T0 + 2 * HOUR, runner: RUNNER };
      expect(
        await t.store.updateReplayJob({ ...lease, stage: "rest", reason: "canary passed" }),
      ).toMatchObject({ stage: "rest", reason: "canary passed", state: "running" });
      expect(await t.store.updateReplayJob(lease)).toMatchObject({ reason: "canary passed" });
      const ended = await t.store.finishReplayJob({
        ...lease,
        state: "stopped",
        reason: "canary failed",
      });
      expect(ended).toMatchObject({
        job: { state: "stopped", reason: "canary failed", finishedAt: T0 + HOUR },
        withdrawn: [],
      });
      expect(await t.store.updateReplayJob(lease)).toBeNull();
    });

    it("a runner whose job another took up can no longer renew it, progress it or hand it back", async () => {
      const { app } = await seedApp(t.store);
      await deadLetter(t.store, app.id, { at: T0 + SECOND });
      await deadLetter(t.store, app.id, { at: T0 + 2 * SECOND });
      const job = await aNewJob(t.store, aJob({ appId: app.id }));
      const at = T0 + HOUR;
      const claimAs = (runner: string, now: number) =>
        t.store.claimReplayJobs({ now, leaseUntil: now + MINUTE, limit: 1, runner });
      const update = (runner: string, now: number, change: Partial<ReplayJobUpdate> = {}) =>
        t.store.updateReplayJob({ id: job.id, now, leaseUntil: now + MINUTE, runner, ...change });
      expect(await claimAs("rnr_a", at)).toHaveLength(1);
      await t.store.prepareReplayJob(job.id, at);
      // A's lease ran out with nobody else looking: the job is still A's to renew.
      expect(await update("rnr_a", at + 2 * MINUTE)).toMatchObject({ state: "running" });

      // A stalls for longer than its lease, and B takes the job up.
      expect(await claimAs("rnr_b", at + 4 * MINUTE)).toHaveLength(1);
      const back = at + 4 * MINUTE + SECOND;
      expect(await update("rnr_a", back)).toBeNull();
      expect(await update("rnr_a", back, { stage: "rest", reason: "canary passed" })).toBeNull();
      const finish = { id: job.id, now: back, runner: "rnr_a", state: "completed" as const };
      expect(await t.store.finishReplayJob({ ...finish, reason: null })).toBeNull();
      expect((await queue(t.store, job.id, 2, "rnr_a", back)).queued).toEqual([]);
      // Nor can A hand B's job back on stopping.
      expect(await update("rnr_a", back, { leaseUntil: back })).toBeNull();
      expect(await claimAs("rnr_c", back)).toEqual([]);

      expect(await update("rnr_b", back)).toMatchObject({
        state: "running",
        stage: "canary",
        reason: null,
        progress: { queued: 0 },
      });
      expect((await queue(t.store, job.id, 2, "rnr_b", back)).queued).toHaveLength(2);
    });

    for (const deleted of ["endpoint", "application"] as const) {
      it(`deleting the ${deleted} of a replay still out withdraws it, so the job can finish`, async () => {
        const { app, endpoints } = await seedApp(t.store, [{}, {}]);
        const other = await seedApp(t.store);
        const [gone, kept] = endpoints.map((e) => e.id) as [string, string];
        const elsewhere = other.endpoints[0]!.id;
        const a = await deadLetter(t.store, app.id, { endpointId: gone, at: T0 + SECOND });
        const b = await deadLetter(t.store, app.id, { endpointId: kept, at: T0 + 2 * SECOND });
        const c = await deadLetter(t.store, other.app.id, { at: T0 + 3 * SECOND });
        const job = await aNewJob(t.store, aJob({ ids: [a.id, b.id, c.id] }, { canarySize: 0 }));
        await takeUp(t.store);
        await t.store.prepareReplayJob(job.id, T0 + HOUR);
        await queue(t.store, job.id, 3);
        // All three replays are out; the deleted ones will never come back with a result.
        const claimed = await claimAll(t.store, T0 + HOUR);
        const sent = claimed.find((d) => d.endpointId === elsewhere)!;
        const toKept = claimed.find((d) => d.endpointId === kept)!;

        if (deleted === "endpoint") await t.store.deleteEndpoint(app.id, gone);
        else await t.store.deleteApplication(app.id);
        await t.store.recordAttempts([replayOutcome(sent, T0 + HOUR + SECOND, true)]);

        const after = (await t.store.getReplayJob(job.id))!;
        const withdrawn = deleted === "endpoint" ? 1 : 2;
        expect(after.progress).toMatchObject({ total: 3, queued: 3, succeeded: 1, withdrawn });
        if (deleted === "endpoint") {
          // The other endpoint's replay is still out: the job waits for it, then finishes.
          expect(nextJobStep(after, 10)).toMatchObject({ kind: "wait" });
          await t.store.recordAttempts([replayOutcome(toKept, T0 + HOUR + SECOND, true)]);
        }
        expect(nextJobStep((await t.store.getReplayJob(job.id))!, 10)).toMatchObject({
          kind: "finish",
          state: "completed",
        });
      });
    }

    it("stopping withdraws replays not yet claimed, reopens their records and says so in their changes", async () => {
      const { app } = await seedApp(t.store);
      const a = await deadLetter(t.store, app.id, { at: T0 + SECOND });
      const b = await deadLetter(t.store, app.id, { at: T0 + 2 * SECOND });
      const job = await aNewJob(t.store, aJob({ appId: app.id }));
      await takeUp(t.store);
      await t.store.prepareReplayJob(job.id, T0 + HOUR);
      await queue(t.store, job.id, 1);
      const inFlight = (await claimAll(t.store, T0 + HOUR))[0]!;
      await queue(t.store, job.id, 1);

      const stopped = await t.store.finishReplayJob({
        id: job.id,
        runner: RUNNER,
        now: T0 + HOUR,
        state: "stopped",
        reason: "the receiver failed again",
      });
      expect(stopped?.job).toMatchObject({
        state: "stopped",
        progress: { queued: 2, withdrawn: 1 },
      });
      // One change to announce per replay taken back, so that the metrics count it withdrawn.
      expect(stopped?.withdrawn).toEqual([
        expect.objectContaining({
          kind: "replay_withdrawn",
          deadLetterId: b.id,
          appId: app.id,
          endpointId: b.endpointId,
          actor: "hookline",
          at: T0 + HOUR,
          detail: "withdrawn before it was sent: the job stopped",
        }),
      ]);
      expect((await t.store.getDeadLetter(a.id))!.state).toBe("replaying");
      expect((await t.store.getDeadLetter(b.id))!.state).toBe("open");
      expect((await t.store.getDeadLetterRecord(b.id))!.history.at(-1)).toMatchObject({
        action: "replay_withdrawn",
        actor: "hookline",
        result: "withdrawn before it was sent: the job stopped",
        jobId: job.id,
      });
      expect(await claimAll(t.store, T0 + HOUR)).toEqual([]);
      // The replay already out finishes and counts.
      await t.store.recordAttempts([replayOutcome(inFlight, T0 + HOUR + SECOND, true)]);
      expect((await t.store.getReplayJob(job.id))!.progress).toMatchObject({
        succeeded: 1,
        withdrawn: 1,
      });
    });

    it("replays withdrawn are announced in the job's order", async () => {
      const { app } = await seedApp(t.store);
      const a = await deadLetter(t.store, app.id, { at: T0 + SECOND });
      const b = await deadLetter(t.store, app.id, { at: T0 + 2 * SECOND });
      const c = await deadLetter(t.store, app.id, { at: T0 + 3 * SECOND });
      // Listed out of the records' own order: the job's order is the list's.
      const job = await aNewJob(t.store, aJob({ ids: [c.id, a.id, b.id] }));
      await takeUp(t.store);
      await t.store.prepareReplayJob(job.id, T0 + HOUR);
      await queue(t.store, job.id, 3);

      const cancelled = await t.store.cancelReplayJob({ id: job.id, actor: "ops", now: T0 + HOUR });
      if (!cancelled.ok) throw new Error("not cancelled");
      expect(cancelled.withdrawn.map((w) => w.deadLetterId)).toEqual([c.id, a.id, b.id]);
    });

    it("cancelling withdraws replays not yet claimed, reopens their records and says so in their changes", async () => {
      const { app } = await seedApp(t.store);
      const a = await deadLetter(t.store, app.id, { at: T0 + SECOND });
      const b = await deadLetter(t.store, app.id, { at: T0 + 2 * SECOND });
      const c = await deadLetter(t.store, app.id, { at: T0 + 3 * SECOND });
      const job = await aNewJob(t.store, aJob({ appId: app.id }));
      await takeUp(t.store);
      await t.store.prepareReplayJob(job.id, T0 + HOUR);
      const enqueue = (limit: number) => queue(t.store, job.id, limit);
      await enqueue(1);
      const inFlight = (await claimAll(t.store, T0 + HOUR))[0]!;
      await enqueue(1);

      const cancelled = await t.store.cancelReplayJob({ id: job.id, actor: "ops", now: T0 + HOUR });
      expect(cancelled).toMatchObject({
        ok: true,
        job: { state: "cancelled", reason: "cancelled by ops", finishedAt: T0 + HOUR },
      });
      if (!cancelled.ok) throw new Error("unreachable");
      expect(cancelled.job.progress).toMatchObject({ queued: 2, withdrawn: 1 });
      // One change to announce per replay taken back, so that the metrics count it withdrawn.
      expect(cancelled.withdrawn).toEqual([
        expect.objectContaining({
          kind: "replay_withdrawn",
          deadLetterId: b.id,
          appId: app.id,
          endpointId: b.endpointId,
          actor: "ops",
          at: T0 + HOUR,
          detail: "withdrawn before it was sent: the job was cancelled",
        }),
      ]);
      expect((await t.store.getDeadLetter(a.id))!.state).toBe("replaying");
      expect((await t.store.getDeadLetter(b.id))!.state).toBe("open");
      expect((await t.store.getDeadLetter(c.id))!.state).toBe("open");
      expect((await t.store.getDeadLetterRecord(b.id))!.history.at(-1)).toMatchObject({
        action: "replay_withdrawn",
        actor: "ops",
        jobId: job.id,
      });
      expect(await claimAll(t.store, T0 + HOUR)).toEqual([]);
      expect((await enqueue(5)).queued).toEqual([]);
      // The replay already out finishes and counts.
      await t.store.recordAttempts([replayOutcome(inFlight, T0 + HOUR + SECOND, true)]);
      expect((await t.store.getDeadLetter(a.id))!.state).toBe("resolved");
      expect((await t.store.getReplayJob(job.id))!.progress.succeeded).toBe(1);
      expect(await t.store.cancelReplayJob({ id: job.id, actor: "ops", now: T0 })).toMatchObject({
        ok: false,
        job: { state: "cancelled" },
      });
      expect(await t.store.cancelReplayJob({ id: "job_x", actor: "ops", now: T0 })).toEqual({
        ok: false,
        job: null,
      });
    });
  });
}
