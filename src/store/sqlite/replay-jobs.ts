/**
 * Bulk replay jobs in SQLite. A job's selection is taken once, into items keyed by (job, record),
 * so a record is replayed at most once per job however often the job is run or resumed.
 */
import type { Database as Db } from "better-sqlite3";
import type { ReplayJob, ReplaySelection } from "../../domain/types.js";
import type {
  DeadLetterChange,
  JobReplaysOut,
  JobSkips,
  JobReplaysQueued,
  NewReplayJob,
  ReplayJobCreated,
  ReplayJobFinish,
  ReplayJobFinished,
  ReplayJobUpdate,
  Store,
} from "../port.js";
import { deadLetterFilter, HOOKLINE_ACTOR, type DeadLetters } from "./dead-letters.js";
import type { ReplayJobStatements } from "./dlq-statements.js";
import { withdrawnChange } from "../dead-letter-text.js";
import { heldElsewhereReason, jobReplayNote, runningFor, skipsFromRow } from "../row-mappers.js";
import { replayJobFromRow, type Row } from "./rows.js";

type ClaimRequest = Parameters<Store["claimReplayJobs"]>[0];
type EnqueueRequest = Parameters<Store["enqueueJobReplays"]>[0];
type CancelResult = Awaited<ReturnType<Store["cancelReplayJob"]>>;

/** Synchronous replay job operations; `SqliteStore` wraps each call in its error mapping. */
export class ReplayJobs {
  constructor(
    private readonly db: Db,
    private readonly s: ReplayJobStatements,
    private readonly deadLetters: DeadLetters,
  ) {}

  create(job: NewReplayJob): ReplayJobCreated {
    return this.db
      .transaction((): ReplayJobCreated => {
        const busy = this.busyWith(job.selection);
        if (busy) return { ok: false, busy };
        this.s.insert.run({
          id: job.id,
          task: job.task,
          stage: job.canarySize > 0 ? "canary" : "rest",
          selection: JSON.stringify(job.selection),
          rate: job.ratePerSecond,
          canarySize: job.canarySize,
          canaryThreshold: job.canaryThreshold,
          startAt: job.startAt,
          createdBy: job.createdBy,
          note: job.note,
          now: job.now,
        });
        return { ok: true, job: this.get(job.id)! };
      })
      .immediate();
  }

  /** The first scheduled or running job that may replay to an endpoint `selection` may. */
  private busyWith(selection: ReplaySelection): { job: ReplayJob; endpointId: string } | null {
    const wanted = new Set(this.endpointsOf(selection));
    if (wanted.size === 0) return null;
    for (const row of this.s.active.all() as Row[]) {
      const job = replayJobFromRow(row);
      const endpointId = this.endpointsHeldBy(job).find((e) => wanted.has(e));
      if (endpointId) return { job, endpointId };
    }
    return null;
  }

  /** The endpoints a scheduled or running job may replay to (see `busyWith`). */
  private endpointsHeldBy(job: ReplayJob): string[] {
    return job.progress.total === null
      ? this.endpointsOf(job.selection)
      : (this.s.itemEndpoints.all(job.id) as Row[]).map((r) => String(r.endpoint_id));
  }

  /**
   * Within prepare's transaction. A job chosen by filter takes its records only now: one
   * dead-lettered since the job was made may be on an endpoint another job has taken since. Its
   * records are skipped, saying which job holds it: two jobs at once would send it both rates.
   */
  private skipHeldElsewhere(jobId: string, now: number): void {
    const mine = this.endpointsHeldBy(this.get(jobId)!);
    if (mine.length === 0) return;
    const held: { jobId: string; endpointId: string }[] = [];
    let skipped = 0;
    for (const row of this.s.active.all() as Row[]) {
      const other = replayJobFromRow(row);
      if (other.id === jobId) continue;
      for (const endpointId of this.endpointsHeldBy(other)) {
        if (!mine.includes(endpointId) || held.some((h) => h.endpointId === endpointId)) continue;
        const detail = `replay job ${other.id} holds endpoint ${endpointId}`;
        skipped += this.s.skipEndpointItems.run({ job: jobId, endpointId, detail, now }).changes;
        held.push({ jobId: other.id, endpointId });
      }
    }
    if (skipped > 0) {
      this.s.countSkippedAtStart.run({
        skipped,
        reason: heldElsewhereReason(skipped, held),
        jobId,
      });
    }
  }

  /** The endpoints a job of `selection` would replay to, were it to start now. */
  private endpointsOf(selection: ReplaySelection): string[] {
    const { ids, ...filter } = selection;
    if (filter.endpointId) return [filter.endpointId];
    const rows = ids?.length
      ? this.s.listedEndpoints.all(JSON.stringify(ids))
      : (() => {
          const { where, params } = deadLetterFilter(filter);
          // Built per selection (it varies); jobs are made by people, so this is not hot.
          return this.db
            .prepare(
              `SELECT DISTINCT endpoint_id FROM dead_letters
              WHERE state IN ('open', 'replaying')${where.map((w) => ` AND ${w}`).join("")}
              ORDER BY endpoint_id`,
            )
            .all(...params);
        })();
    return (rows as Row[]).map((r) => String(r.endpoint_id));
  }

  get(id: string): ReplayJob | null {
    const row = this.s.get.get(id) as Row | undefined;
    return row ? replayJobFromRow(row) : null;
  }

  claim(req: ClaimRequest): ReplayJob[] {
    const rows = this.s.claim.all({
      now: req.now,
      lease: req.leaseUntil,
      limit: req.limit,
      runner: req.runner,
    });
    return (rows as Row[]).map(replayJobFromRow);
  }

  release(): void {
    this.s.release.run();
  }

  nextStart(): number | null {
    const row = this.s.nextStart.get() as Row | undefined;
    return row?.at == null ? null : Number(row.at);
  }

  noteWaiting(req: { now: number; reason: string }): number | null {
    this.s.noteWaiting.run(req);
    const row = this.s.nextStartAfter.get(req.now) as Row | undefined;
    return row?.at == null ? null : Number(row.at);
  }

  prepare(id: string, now: number): ReplayJob | null {
    return this.db
      .transaction((): ReplayJob | null => {
        const job = this.get(id);
        // Cancelled as a runner took it up: an ended job takes no records.
        if (!job || job.state !== "running" || job.progress.total !== null) return job;
        const { ids, ...filter } = job.selection;
        if (ids?.length) {
          this.s.insertListed.run({ job: id, ids: JSON.stringify(ids), now });
        } else {
          const { where, params } = deadLetterFilter(filter);
          // Built per job (the filter varies); a job is prepared once, so this is not hot.
          this.db
            .prepare(
              `INSERT OR IGNORE INTO replay_job_items (job_id, dead_letter_id, seq, state,
                updated_at)
              SELECT ?, id, row_number() OVER (ORDER BY id), 'pending', ? FROM dead_letters
              WHERE state = 'open'${where.length ? ` AND ${where.join(" AND ")}` : ""}`,
            )
            .run(id, now, ...params);
        }
        const total = Number((this.s.countItems.get(id) as Row).n);
        this.s.setTotal.run(total, now, id);
        this.skipHeldElsewhere(id, now);
        return this.get(id);
      })
      .immediate();
  }

  enqueue(req: EnqueueRequest): JobReplaysQueued {
    return this.db
      .transaction((): JobReplaysQueued => {
        const out: JobReplaysQueued = { queued: [], skipped: 0, remaining: 0 };
        const row = this.s.get.get(req.jobId) as Row | undefined;
        if (!row || !runningFor(row, req.runner)) return out;
        const job = replayJobFromRow(row);
        // Skipped items do not count against the limit: take the next ones until it is met.
        for (;;) {
          const want = req.limit - out.queued.length;
          const waiting = want > 0 ? (this.s.waiting.all(req.jobId, want) as Row[]) : [];
          if (waiting.length === 0) break;
          for (const item of waiting) this.enqueueItem(job, String(item.dead_letter_id), req, out);
        }
        this.s.countQueued.run({
          queued: out.queued.length,
          skipped: out.skipped,
          now: req.now,
          job: req.jobId,
        });
        out.remaining = Number((this.s.countWaiting.get(req.jobId) as Row).n);
        return out;
      })
      .immediate();
  }

  /** Within enqueue's transaction: one item queued as a replay, or skipped with the reason. */
  private enqueueItem(
    job: ReplayJob,
    record: string,
    req: EnqueueRequest,
    out: JobReplaysQueued,
  ): void {
    const current = this.deadLetters.getDeadLetter(record);
    // A bulk replay takes open records only: one a person resolved meanwhile stays so. Nothing is
    // sent to a disabled endpoint, so its records are left for after it is enabled again.
    const disabled =
      current && Number((this.s.endpointDisabled.get(current.endpointId) as Row)?.disabled) === 1;
    const skip = !current
      ? "the record no longer exists"
      : current.state !== "open"
        ? `the record is ${current.state}`
        : disabled
          ? "the endpoint is disabled"
          : null;
    const at = { job: job.id, record, now: req.now };
    if (current && !skip) {
      const deliveryId = req.newDeliveryId();
      const started = this.deadLetters.startReplay(
        {
          deadLetterId: record,
          deliveryId,
          now: req.now,
          actor: job.createdBy,
          note: jobReplayNote(job),
          abandonAfter: req.abandonAfter,
        },
        job.id,
      );
      if (started.ok) {
        this.s.markQueued.run({ ...at, prior: current.state, delivery: deliveryId });
        out.queued.push({ deadLetterId: record, deliveryId, endpointId: current.endpointId });
        return;
      }
    }
    this.s.markSkipped.run({ ...at, detail: skip ?? "the record is already replaying" });
    out.skipped++;
  }

  update(u: ReplayJobUpdate): ReplayJob | null {
    const row = this.s.update.get({
      id: u.id,
      now: u.now,
      lease: u.leaseUntil,
      stage: u.stage ?? null,
      state: null,
      setReason: u.reason !== undefined ? 1 : 0,
      reason: u.reason ?? null,
      runner: u.runner,
    }) as Row | undefined;
    return row ? replayJobFromRow(row) : null;
  }

  finish(f: ReplayJobFinish): ReplayJobFinished | null {
    const apply = (): ReplayJobFinished | null => {
      const row = this.s.update.get({
        id: f.id,
        now: f.now,
        lease: null,
        stage: null,
        state: f.state,
        setReason: 1,
        reason: f.reason,
        runner: f.runner,
      }) as Row | undefined;
      if (!row) return null;
      // A job that stops with replays still waiting to be sent (behind an open circuit) takes
      // them back, as a cancelled one does; a job that completes has none out.
      const detail = "withdrawn before it was sent: the job stopped";
      const withdrawn = this.withdrawQueued(f.id, HOOKLINE_ACTOR, detail, f.now);
      return { job: withdrawn.length > 0 ? this.get(f.id)! : replayJobFromRow(row), withdrawn };
    };
    return this.db.transaction(apply).immediate();
  }

  /**
   * Within a transaction: the job's replays queued but not yet claimed are deleted, their items
   * withdrawn and their records back as they were; returns their changes.
   */
  private withdrawQueued(
    jobId: string,
    actor: string,
    detail: string,
    now: number,
  ): DeadLetterChange[] {
    const withdrawn: DeadLetterChange[] = [];
    for (const item of this.s.queuedItems.all(jobId) as Row[]) {
      const delivery = String(item.delivery_id);
      if (this.s.withdrawDelivery.run(delivery).changes === 0) continue;
      const record = String(item.dead_letter_id);
      this.s.markWithdrawn.run({ job: jobId, record, detail, now });
      this.s.restoreRecord.run({ id: record, state: item.prior_state ?? "open", now });
      this.deadLetters.event(record, now, actor, "replay_withdrawn", detail, {
        delivery,
        job: jobId,
      });
      withdrawn.push(withdrawnChange(item, delivery, actor, now, detail));
    }
    if (withdrawn.length > 0) this.s.countWithdrawn.run(withdrawn.length, jobId);
    return withdrawn;
  }

  endpointsOut(jobId: string): JobReplaysOut[] {
    return (this.s.endpointsOut.all(jobId) as Row[]).map((r) => ({
      endpointId: String(r.endpoint_id),
      replays: Number(r.n),
    }));
  }

  skips(jobId: string): JobSkips[] {
    return (this.s.skips.all(jobId) as Row[]).map(skipsFromRow);
  }

  cancel(req: { id: string; actor: string; now: number }): CancelResult {
    return this.db
      .transaction((): CancelResult => {
        const reason = `cancelled by ${req.actor}`;
        const moved = this.s.cancel.run({ id: req.id, reason, now: req.now }).changes;
        if (moved === 0) return { ok: false, job: this.get(req.id) };
        // Replays queued but not yet claimed are taken back; claimed ones finish as they are.
        const detail = "withdrawn before it was sent: the job was cancelled";
        const withdrawn = this.withdrawQueued(req.id, req.actor, detail, req.now);
        return { ok: true, job: this.get(req.id)!, withdrawn };
      })
      .immediate();
  }
}
