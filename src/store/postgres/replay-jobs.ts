/**
 * Bulk replay jobs in PostgreSQL. A job's selection is taken once, into items keyed by (job,
 * record), so a record is replayed at most once per job however often the job is run or resumed.
 */
import type pg from "pg";
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
import { all, exec, one, Params, tx, type Conn } from "./database.js";
import { deadLetterFilter, HOOKLINE_ACTOR, type DeadLetters } from "./dead-letters.js";
import { REPLAY_JOBS as S } from "./dlq-statements.js";
import { withdrawnChange } from "../dead-letter-text.js";
import { heldElsewhereReason, jobReplayNote, runningFor, skipsFromRow } from "../row-mappers.js";
import { replayJobFromRow } from "./rows.js";

type ClaimRequest = Parameters<Store["claimReplayJobs"]>[0];
type EnqueueRequest = Parameters<Store["enqueueJobReplays"]>[0];
type CancelResult = Awaited<ReturnType<Store["cancelReplayJob"]>>;

/** The class half of the advisory lock key that makes jobs one at a time (the other: the schema). */
const CREATE_LOCK = 0x686c726a; // "hlrj"

/** Replay job operations; `PostgresStore` wraps each call in its error mapping. */
export class ReplayJobs {
  constructor(
    private readonly pool: pg.Pool,
    private readonly deadLetters: DeadLetters,
  ) {}

  create(job: NewReplayJob): Promise<ReplayJobCreated> {
    return tx(this.pool, async (c): Promise<ReplayJobCreated> => {
      await exec(c, S.createLock, [CREATE_LOCK]);
      const busy = await this.busyWith(c, job.selection);
      if (busy) return { ok: false, busy };
      const row = await one(c, S.insert, [
        job.id,
        job.task,
        job.canarySize > 0 ? "canary" : "rest",
        JSON.stringify(job.selection),
        job.ratePerSecond,
        job.canarySize,
        job.canaryThreshold,
        job.startAt,
        job.createdBy,
        job.note,
        job.now,
      ]);
      return { ok: true, job: replayJobFromRow(row!) };
    });
  }

  /** The first scheduled or running job that may replay to an endpoint `selection` may. */
  private async busyWith(
    c: Conn,
    selection: ReplaySelection,
  ): Promise<{ job: ReplayJob; endpointId: string } | null> {
    const wanted = new Set(await this.endpointsOf(c, selection));
    if (wanted.size === 0) return null;
    for (const row of await all(c, S.active)) {
      const job = replayJobFromRow(row);
      const endpointId = (await this.endpointsHeldBy(c, job)).find((e) => wanted.has(e));
      if (endpointId) return { job, endpointId };
    }
    return null;
  }

  /** The endpoints a scheduled or running job may replay to (see `busyWith`). */
  private async endpointsHeldBy(c: Conn, job: ReplayJob): Promise<string[]> {
    return job.progress.total === null
      ? this.endpointsOf(c, job.selection)
      : (await all(c, S.itemEndpoints, [job.id])).map((r) => String(r.endpoint_id));
  }

  /**
   * Within prepare's transaction, under the lock creating a job takes. A job chosen by filter
   * takes its records only now: one dead-lettered since the job was made may be on an endpoint
   * another job has taken since. Its records are skipped, saying which job holds it: two jobs at
   * once would send it both rates.
   */
  private async skipHeldElsewhere(c: Conn, job: ReplayJob, now: number): Promise<void> {
    const mine = await this.endpointsHeldBy(c, job);
    if (mine.length === 0) return;
    const held: { jobId: string; endpointId: string }[] = [];
    let skipped = 0;
    for (const row of await all(c, S.active)) {
      const other = replayJobFromRow(row);
      if (other.id === job.id) continue;
      for (const endpointId of await this.endpointsHeldBy(c, other)) {
        if (!mine.includes(endpointId) || held.some((h) => h.endpointId === endpointId)) continue;
        const detail = `replay job ${other.id} holds endpoint ${endpointId}`;
        skipped += await exec(c, S.skipEndpointItems, [job.id, endpointId, detail, now]);
        held.push({ jobId: other.id, endpointId });
      }
    }
    if (skipped > 0) {
      await exec(c, S.countSkippedAtStart, [skipped, heldElsewhereReason(skipped, held), job.id]);
    }
  }

  /** The endpoints a job of `selection` would replay to, were it to start now. */
  private async endpointsOf(c: Conn, selection: ReplaySelection): Promise<string[]> {
    const { ids, ...filter } = selection;
    if (filter.endpointId) return [filter.endpointId];
    if (ids?.length) {
      return (await all(c, S.listedEndpoints, [ids])).map((r) => String(r.endpoint_id));
    }
    const params = new Params();
    const where = ["state IN ('open', 'replaying')", ...deadLetterFilter(filter, params)];
    // Built per selection (it varies); jobs are made by people, so this is not hot.
    const rows = await all(
      c,
      `SELECT DISTINCT endpoint_id FROM dead_letters WHERE ${where.join(" AND ")}
      ORDER BY endpoint_id`,
      params.values,
    );
    return rows.map((r) => String(r.endpoint_id));
  }

  async get(id: string, c: Conn = this.pool): Promise<ReplayJob | null> {
    const row = await one(c, S.get, [id]);
    return row ? replayJobFromRow(row) : null;
  }

  async claim(req: ClaimRequest): Promise<ReplayJob[]> {
    const rows = await all(this.pool, S.claim, [req.now, req.leaseUntil, req.limit, req.runner]);
    // RETURNING gives no order guarantee; the claim took them by start time.
    return rows.map(replayJobFromRow).sort((a, b) => a.startAt - b.startAt || cmp(a.id, b.id));
  }

  async release(): Promise<void> {
    await exec(this.pool, S.release);
  }

  async nextStart(): Promise<number | null> {
    const row = await one(this.pool, S.nextStart);
    return row?.at == null ? null : Number(row.at);
  }

  async noteWaiting(req: { now: number; reason: string }): Promise<number | null> {
    const row = await one(this.pool, S.noteWaiting, [req.now, req.reason]);
    return row?.at == null ? null : Number(row.at);
  }

  prepare(id: string, now: number): Promise<ReplayJob | null> {
    return tx(this.pool, async (c) => {
      await exec(c, S.createLock, [CREATE_LOCK]);
      const locked = await one(c, S.lock, [id]);
      const job = locked ? replayJobFromRow(locked) : null;
      // Cancelled as a runner took it up: an ended job takes no records.
      if (!job || job.state !== "running" || job.progress.total !== null) return job;
      const { ids, ...filter } = job.selection;
      if (ids?.length) {
        await exec(c, S.insertListed, [id, now, ids]);
      } else {
        const params = new Params();
        const [jobParam, nowParam] = [params.add(id), params.add(now)];
        const where = ["state = 'open'", ...deadLetterFilter(filter, params)];
        // Built per job (the filter varies); a job is prepared once, so this is not hot.
        await exec(
          c,
          `INSERT INTO replay_job_items (job_id, dead_letter_id, seq, state, updated_at)
          SELECT ${jobParam}::text, id, row_number() OVER (ORDER BY id), 'pending',
            ${nowParam}::bigint
          FROM dead_letters WHERE ${where.join(" AND ")}
          ON CONFLICT (job_id, dead_letter_id) DO NOTHING`,
          params.values,
        );
      }
      const total = Number((await one(c, S.countItems, [id]))!.n);
      await exec(c, S.setTotal, [total, now, id]);
      await this.skipHeldElsewhere(c, (await this.get(id, c))!, now);
      return this.get(id, c);
    });
  }

  enqueue(req: EnqueueRequest): Promise<JobReplaysQueued> {
    return tx(this.pool, async (c): Promise<JobReplaysQueued> => {
      const out: JobReplaysQueued = { queued: [], skipped: 0, remaining: 0 };
      const locked = await one(c, S.lock, [req.jobId]);
      if (!locked || !runningFor(locked, req.runner)) return out;
      const job = replayJobFromRow(locked);
      // Skipped items do not count against the limit: take the next ones until it is met.
      for (;;) {
        const want = req.limit - out.queued.length;
        const waiting = want > 0 ? await all(c, S.waiting, [req.jobId, want]) : [];
        if (waiting.length === 0) break;
        for (const item of waiting) {
          await this.enqueueItem(c, job, String(item.dead_letter_id), req, out);
        }
      }
      await exec(c, S.countQueued, [out.queued.length, out.skipped, req.now, req.jobId]);
      out.remaining = Number((await one(c, S.countWaiting, [req.jobId]))!.n);
      return out;
    });
  }

  /** Within enqueue's transaction: one item queued as a replay, or skipped with the reason. */
  private async enqueueItem(
    c: Conn,
    job: ReplayJob,
    record: string,
    req: EnqueueRequest,
    out: JobReplaysQueued,
  ): Promise<void> {
    const current = await this.deadLetters.getDeadLetter(record, c);
    // A bulk replay takes open records only: one a person resolved meanwhile stays so. Nothing is
    // sent to a disabled endpoint, so its records are left for after it is enabled again.
    const disabled =
      current && (await one(c, S.endpointDisabled, [current.endpointId]))?.disabled === true;
    let skip = !current
      ? "the record no longer exists"
      : current.state !== "open"
        ? `the record is ${current.state}`
        : disabled
          ? "the endpoint is disabled"
          : null;
    if (current && !skip) {
      const deliveryId = req.newDeliveryId();
      const started = await this.deadLetters.startReplay(
        c,
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
        await exec(c, S.markQueued, [job.id, record, current.state, deliveryId, req.now]);
        out.queued.push({ deadLetterId: record, deliveryId, endpointId: current.endpointId });
        return;
      }
      // Moved since it was read: a person resolved it, or another replay took it.
      skip = started.record
        ? `the record is ${started.record.state}`
        : "the record no longer exists";
    }
    const detail = skip ?? "the record is already replaying";
    await exec(c, S.markSkipped, [job.id, record, detail, req.now]);
    out.skipped++;
  }

  async update(u: ReplayJobUpdate): Promise<ReplayJob | null> {
    const row = await one(this.pool, S.update, [
      u.id,
      u.now,
      u.leaseUntil,
      u.stage ?? null,
      null,
      u.reason !== undefined,
      u.reason ?? null,
      u.runner,
    ]);
    return row ? replayJobFromRow(row) : null;
  }

  finish(f: ReplayJobFinish): Promise<ReplayJobFinished | null> {
    return tx(this.pool, async (c): Promise<ReplayJobFinished | null> => {
      const row = await one(c, S.update, [
        f.id,
        f.now,
        null,
        null,
        f.state,
        true,
        f.reason,
        f.runner,
      ]);
      if (!row) return null;
      // A job that stops with replays still waiting to be sent (behind an open circuit) takes
      // them back, as a cancelled one does; a job that completes has none out. The update holds
      // the job's row first, as cancelling does.
      const detail = "withdrawn before it was sent: the job stopped";
      const withdrawn = await this.withdrawQueued(c, f.id, HOOKLINE_ACTOR, detail, f.now);
      const job = withdrawn.length > 0 ? (await this.get(f.id, c))! : replayJobFromRow(row);
      return { job, withdrawn };
    });
  }

  /**
   * Within a transaction holding the job: its replays queued but not yet claimed are deleted,
   * their items withdrawn and their records back as they were; returns their changes.
   */
  private async withdrawQueued(
    c: Conn,
    jobId: string,
    actor: string,
    detail: string,
    now: number,
  ): Promise<DeadLetterChange[]> {
    const withdrawn: DeadLetterChange[] = [];
    for (const item of await all(c, S.queuedItems, [jobId])) {
      const delivery = String(item.delivery_id);
      if ((await exec(c, S.withdrawDelivery, [delivery])) === 0) continue;
      const record = String(item.dead_letter_id);
      await exec(c, S.markWithdrawn, [jobId, record, detail, now]);
      await exec(c, S.restoreRecord, [record, item.prior_state ?? "open", now]);
      await this.deadLetters.event(c, record, now, actor, "replay_withdrawn", detail, {
        delivery,
        job: jobId,
      });
      withdrawn.push(withdrawnChange(item, delivery, actor, now, detail));
    }
    if (withdrawn.length > 0) await exec(c, S.countWithdrawn, [withdrawn.length, jobId]);
    return withdrawn;
  }

  async endpointsOut(jobId: string): Promise<JobReplaysOut[]> {
    return (await all(this.pool, S.endpointsOut, [jobId])).map((r) => ({
      endpointId: String(r.endpoint_id),
      replays: Number(r.n),
    }));
  }

  async skips(jobId: string): Promise<JobSkips[]> {
    return (await all(this.pool, S.skips, [jobId])).map(skipsFromRow);
  }

  cancel(req: { id: string; actor: string; now: number }): Promise<CancelResult> {
    return tx(this.pool, async (c): Promise<CancelResult> => {
      const reason = `cancelled by ${req.actor}`;
      const moved = await exec(c, S.cancel, [req.id, reason, req.now]);
      if (moved === 0) return { ok: false, job: await this.get(req.id, c) };
      // Replays queued but not yet claimed are taken back; claimed ones finish as they are.
      const detail = "withdrawn before it was sent: the job was cancelled";
      const withdrawn = await this.withdrawQueued(c, req.id, req.actor, detail, req.now);
      return { ok: true, job: (await this.get(req.id, c))!, withdrawn };
    });
  }
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
