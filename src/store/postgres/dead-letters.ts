/**
 * The dead-letter queue in PostgreSQL: turning dead deliveries into records (or, at the depth cap,
 * tombstones), replays and their outcomes, people's decisions, and the read models.
 */
import type pg from "pg";
import type {
  DeadLetter,
  DeadLetterEvent,
  DeadLetterOverflow,
  DeadLetterRecord,
  DeadLetterState,
} from "../../domain/types.js";
import { newId } from "../../ids.js";
import type {
  DeadLetterChange,
  DeadLetterDecided,
  DeadLetterDecision,
  DeadLetterQuery,
  DeadLetterSummaryRow,
  DeliveryOutcome,
  KeptAnswer,
  Page,
  PageQuery,
  ReplayEnqueued,
  ReplayRequest,
  StoreLimits,
} from "../port.js";
import { all, exec, one, Params, tx, type Conn } from "./database.js";
import {
  describeResult,
  finalAnswer,
  REPLAY_ENDED,
  replayEnding,
  resolvedByResend,
  unsentReason,
} from "../dead-letter-text.js";
import { DEAD_LETTERS as S } from "./dlq-statements.js";
import { withKeptAnswer } from "./kept-answer.js";
import { paginate } from "./pagination.js";
import {
  attemptFromRow,
  circuitFromRow,
  deadLetterEventFromRow,
  deadLetterFromRow,
  deliveryFromRow,
  overflowFromRow,
} from "./rows.js";

/** What hookline writes as the actor of what it does by itself. */
export const HOOKLINE_ACTOR = "hookline";

/** The WHERE terms of a dead-letter filter (shared by listing and by replay job selection). */
export function deadLetterFilter(
  q: Omit<DeadLetterQuery, keyof PageQuery>,
  params: Params,
): string[] {
  const where: string[] = [];
  const add = (term: (placeholder: string) => string, value: unknown) =>
    where.push(term(params.add(value)));
  if (q.appId) add((p) => `app_id = ${p}`, q.appId);
  if (q.endpointId) add((p) => `endpoint_id = ${p}`, q.endpointId);
  if (q.messageId) add((p) => `message_id = ${p}`, q.messageId);
  if (q.states?.length) add((p) => `state = ANY(${p}::text[])`, q.states);
  if (q.failureClass) add((p) => `failure_class = ${p}`, q.failureClass);
  if (q.eventType) add((p) => `event_type = ${p}`, q.eventType);
  if (q.since !== undefined) add((p) => `created_at >= ${p}`, q.since);
  if (q.until !== undefined) add((p) => `created_at < ${p}`, q.until);
  return where;
}

/** Dead-letter operations; `PostgresStore` wraps each call in its error mapping. */
export class DeadLetters {
  constructor(
    private readonly pool: pg.Pool,
    private readonly limits: StoreLimits,
  ) {}

  // ---- inside recordAttempts' transaction ---------------------------------------------------

  /** A delivery was given up on: a new open record, or a tombstone if its endpoint is full. */
  async recordDead(
    c: Conn,
    o: DeliveryOutcome,
    failureClass: DeadLetter["failureClass"],
    reason: string,
  ): Promise<DeadLetterChange> {
    const a = o.attempt;
    await exec(c, S.ensureDepth, [o.endpointId]);
    const depth = Number((await one(c, S.lockDepth, [o.endpointId]))?.open ?? 0);
    const base = { appId: o.appId, endpointId: o.endpointId, deliveryId: o.deliveryId, at: o.at };
    const id = newId("dlq", o.at);
    if (depth >= this.limits.maxOpenDeadLettersPerEndpoint) {
      await exec(c, S.insertOverflow, [id, o.deliveryId, failureClass, reason, o.at]);
      await exec(c, S.countOverflow, [o.endpointId, o.at]);
      const detail =
        `not kept: the endpoint has ${depth} open records ` +
        `(cap ${this.limits.maxOpenDeadLettersPerEndpoint}); ${reason}`;
      return { ...base, kind: "overflowed", deadLetterId: id, actor: HOOKLINE_ACTOR, detail };
    }
    const last = a ? null : await one(c, S.lastAttempt, [o.messageId, o.deliveryId]);
    const final = finalAnswer(a ?? (last ? attemptFromRow(last) : null));
    await exec(c, S.insertRecord, [
      id,
      o.deliveryId,
      failureClass,
      reason,
      final.status,
      final.error,
      JSON.stringify(o.signatureHeaders),
      o.at,
    ]);
    await this.event(
      c,
      id,
      o.at,
      HOOKLINE_ACTOR,
      "dead_lettered",
      `${failureClass}: ${reason}`,
      {},
    );
    return { ...base, kind: "recorded", deadLetterId: id, actor: HOOKLINE_ACTOR, detail: reason };
  }

  /**
   * Within a transaction that records outcomes, before it takes any delivery: holds the rows of
   * the bulk replay jobs whose replays are among these deliveries, then the records they replay.
   * Queueing a job's replays and deleting an endpoint take the job first, and the deletion then
   * the records before the deliveries; recording took the delivery first, then the record, and
   * counted the result on the job last, so a deletion beside it could deadlock.
   */
  async lockReplaysOf(c: Conn, deliveryIds: readonly string[]): Promise<void> {
    if (deliveryIds.length === 0) return;
    await exec(c, S.lockJobsOf, [deliveryIds]);
    await exec(c, S.lockRecordsOf, [deliveryIds]);
  }

  /** Locks the open records of these messages (resends about to be recorded). */
  async lockOpenOf(c: Conn, messageIds: readonly string[]): Promise<void> {
    if (messageIds.length > 0) await exec(c, S.lockOpenOf, [messageIds]);
  }

  /** A resend delivered the message: its open records for the endpoint are resolved. */
  async resolveDelivered(c: Conn, o: DeliveryOutcome): Promise<DeadLetterChange[]> {
    const rows = await all(c, S.resolveDelivered, [o.messageId, o.endpointId, o.at]);
    const changes: DeadLetterChange[] = [];
    for (const row of rows) {
      const change = resolvedByResend(String(row.id), o, HOOKLINE_ACTOR);
      await this.event(c, change.deadLetterId, o.at, change.actor, "resolved", change.detail, {
        delivery: o.deliveryId,
      });
      changes.push(change);
    }
    return changes;
  }

  /** A replay delivery's one attempt is in: update the record it replays, and its job. */
  async recordReplay(
    c: Conn,
    deadLetterId: string,
    o: DeliveryOutcome,
  ): Promise<DeadLetterChange[]> {
    const row = await one(c, S.lock, [deadLetterId]);
    if (!row) return [];
    const record = deadLetterFromRow(row);
    const request = await one(c, S.requestOf, [o.deliveryId]);
    const actor = request ? String(request.actor) : HOOKLINE_ACTOR;
    const jobId = request?.job_id == null ? null : String(request.job_id);
    const ok = o.next.kind === "succeeded";
    const result = describeResult(o);
    // A replay that ended without a request (its endpoint was disabled meanwhile) tells nothing
    // of the receiver, and one answered 429 only that it is pacing hookline (no failure to the
    // circuit breaker either): the record reopens, but neither counts toward abandoning it.
    const sent = o.attempt !== null;
    const counted = !ok && sent && o.attempt?.outcome !== "rate_limited";
    const failed = ok ? 0 : counted ? record.failedReplays + 1 : record.failedReplays;
    const limit = row.abandon_after == null ? null : Number(row.abandon_after);
    const abandon = counted && limit !== null && failed >= limit;
    // A record that is no longer replaying (it was withdrawn meanwhile) keeps its state.
    const state: DeadLetterState =
      record.state !== "replaying"
        ? record.state
        : ok
          ? "resolved"
          : abandon
            ? "abandoned"
            : "open";
    await exec(c, S.finishReplay, [deadLetterId, state, failed, o.attempt?.at ?? null, o.at]);
    const refs = { delivery: o.deliveryId, job: jobId };
    // Unsent, it is no result of the job's either (no part of a canary): it counts as withdrawn,
    // and the record's history and the change announced say so too, as the job does.
    const item = replayEnding(ok, sent);
    const { action, kind } = REPLAY_ENDED[item];
    await this.event(c, deadLetterId, o.at, actor, action, result, refs);
    const done = await one(c, S.jobItemDone, [item, result, o.at, o.deliveryId]);
    if (done) {
      const [failedN, withdrawnN] = [item === "failed" ? 1 : 0, item === "withdrawn" ? 1 : 0];
      await exec(c, S.countJobResult, [ok ? 1 : 0, failedN, withdrawnN, o.at, done.job_id]);
    }
    const base = {
      deadLetterId,
      appId: record.appId,
      endpointId: record.endpointId,
      deliveryId: o.deliveryId,
      at: o.at,
    };
    const changes: DeadLetterChange[] = [{ ...base, kind, actor, detail: result }];
    if (abandon && state === "abandoned") {
      const why = `abandoned after ${failed} failed replays in a row`;
      await this.event(c, deadLetterId, o.at, HOOKLINE_ACTOR, "abandoned", why, refs);
      changes.push({ ...base, kind: "abandoned", actor: HOOKLINE_ACTOR, detail: why });
    }
    return changes;
  }

  // ---- replays and decisions ----------------------------------------------------------------

  /** `kept`: a keyed request's answer, kept on its key in the replay's transaction. */
  enqueueReplay(req: ReplayRequest, kept?: KeptAnswer<ReplayEnqueued>): Promise<ReplayEnqueued> {
    const write = (c: Conn) => this.startReplay(c, req, null);
    return kept ? withKeptAnswer(this.pool, write, kept) : tx(this.pool, write);
  }

  /** Within a transaction: open or resolved → replaying, plus the replay delivery. */
  async startReplay(c: Conn, req: ReplayRequest, jobId: string | null): Promise<ReplayEnqueued> {
    const moved = await one(c, S.startReplay, [
      req.deadLetterId,
      req.abandonAfter,
      req.now,
      jobId === null,
    ]);
    if (!moved) {
      // Read after the guarded update: a request that lost a race sees the winner's state.
      const current = await one(c, S.get, [req.deadLetterId]);
      return { ok: false, record: current ? deadLetterFromRow(current) : null };
    }
    const record = deadLetterFromRow(moved);
    // As with new messages: an open circuit holds the replay until its probe.
    const circuit = await one(c, S.circuitOf, [record.endpointId]);
    const probeAt = circuit?.state === "open" ? Number(circuit.next_probe_at ?? 0) : 0;
    const due = Math.max(req.now, probeAt);
    const delivery = await one(c, S.insertReplayDelivery, [
      req.deliveryId,
      record.appId,
      record.messageId,
      record.endpointId,
      due,
      req.now,
      record.id,
    ]);
    const queued =
      due > req.now
        ? `queued behind the circuit's probe at ${new Date(due).toISOString()}`
        : "queued";
    await this.event(c, req.deadLetterId, req.now, req.actor, "replay_requested", queued, {
      note: req.note,
      delivery: req.deliveryId,
      job: jobId,
    });
    return { ok: true, delivery: deliveryFromRow(delivery!), record };
  }

  decide(req: DeadLetterDecision, to: "resolved" | "abandoned"): Promise<DeadLetterDecided> {
    const from: DeadLetterState[] = to === "resolved" ? ["open", "abandoned"] : ["open"];
    return tx(this.pool, async (c): Promise<DeadLetterDecided> => {
      const moved = await one(c, S.decide, [req.id, to, req.now, from]);
      if (!moved) return { ok: false, record: await this.getDeadLetter(req.id, c) };
      const record = deadLetterFromRow(moved);
      await this.event(c, req.id, req.now, req.actor, to, `${record.state} by ${req.actor}`, {
        note: req.note,
      });
      return { ok: true, record };
    });
  }

  // ---- read models --------------------------------------------------------------------------

  async getDeadLetter(id: string, c: Conn = this.pool): Promise<DeadLetter | null> {
    const row = await one(c, S.get, [id]);
    return row ? deadLetterFromRow(row) : null;
  }

  async findByDelivery(deliveryId: string): Promise<DeadLetter | null> {
    const row = await one(this.pool, S.byDelivery, [deliveryId]);
    return row ? deadLetterFromRow(row) : null;
  }

  async reasonsOf(messageId: string, deliveryIds: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    if (deliveryIds.length === 0) return found;
    for (const r of await all(this.pool, S.reasonsOf, [messageId, deliveryIds])) {
      const reason = String(r.reason);
      found.set(String(r.delivery_id), r.unsent === true ? unsentReason(reason) : reason);
    }
    return found;
  }

  /** The record and what goes with it, read from one snapshot. */
  getRecord(id: string): Promise<DeadLetterRecord | null> {
    return tx(
      this.pool,
      async (c) => {
        const record = await this.getDeadLetter(id, c);
        if (!record) return null;
        const message = await one(c, S.payloadOf, [record.messageId]);
        const attempts = await all(c, S.attemptsOf, [record.deliveryId, id, record.messageId]);
        const history = await all(c, S.historyOf, [id]);
        return {
          ...record,
          payload: message ? (message.payload as Buffer) : null,
          attempts: attempts.map(attemptFromRow),
          history: history.map(deadLetterEventFromRow),
        };
      },
      "snapshot",
    );
  }

  list(q: DeadLetterQuery): Promise<Page<DeadLetter>> {
    const params = new Params();
    const where = deadLetterFilter(q, params);
    return paginate(
      this.pool,
      { select: "SELECT * FROM dead_letters", where, params },
      "id",
      q,
      deadLetterFromRow,
      (d) => d.id,
    );
  }

  async summary(q: { appId?: string }): Promise<DeadLetterSummaryRow[]> {
    const rows = await all(this.pool, S.summary, [q.appId ?? null]);
    return rows.map((r) => ({
      appId: String(r.app_id),
      endpointId: String(r.endpoint_id),
      failureClass: (r.failure_class ?? null) as DeadLetter["failureClass"] | null,
      open: Number(r.open),
      replaying: Number(r.replaying),
      oldestAt: r.oldest_at == null ? null : Number(r.oldest_at),
      lastSuccessAt: r.last_success_at == null ? null : Number(r.last_success_at),
      circuit:
        r.circuit_state == null
          ? null
          : circuitFromRow({
              state: r.circuit_state,
              since: r.circuit_since,
              reason: r.circuit_reason,
              next_probe_at: r.circuit_next_probe_at,
              reopen_count: r.circuit_reopen_count,
              opened_at: r.circuit_opened_at,
            }),
      depth: Number(r.depth),
      overflowed: Number(r.dlq_overflowed ?? 0),
      lastOverflowAt: r.dlq_last_overflow_at == null ? null : Number(r.dlq_last_overflow_at),
    }));
  }

  listOverflow(
    q: PageQuery & { appId?: string; endpointId?: string },
  ): Promise<Page<DeadLetterOverflow>> {
    const params = new Params();
    const where = deadLetterFilter({ appId: q.appId, endpointId: q.endpointId }, params);
    return paginate(
      this.pool,
      { select: "SELECT * FROM dead_letter_overflow", where, params },
      "id",
      { ...q, order: q.order ?? "descending" },
      overflowFromRow,
      (o) => o.id,
    );
  }

  /** Appends one history entry. */
  async event(
    c: Conn,
    record: string,
    at: number,
    actor: string,
    action: DeadLetterEvent["action"],
    result: string,
    refs: { note?: string | null; delivery?: string | null; job?: string | null },
  ): Promise<void> {
    await exec(c, S.insertEvent, [
      record,
      at,
      actor,
      action,
      result,
      refs.note ?? null,
      refs.delivery ?? null,
      refs.job ?? null,
    ]);
  }
}
