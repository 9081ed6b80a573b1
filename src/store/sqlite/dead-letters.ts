/**
 * The dead-letter queue in SQLite: turning dead deliveries into records (or, at the depth cap,
 * tombstones), replays and their outcomes, people's decisions, and the read models.
 */
import type { Database as Db } from "better-sqlite3";
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
import {
  describeResult,
  REPLAY_ENDED,
  replayEnding,
  finalAnswer,
  resolvedByResend,
  type FinalAnswerSource,
  unsentReason,
} from "../dead-letter-text.js";
import type { DeadLetterStatements } from "./dlq-statements.js";
import { keepAnswer } from "./kept-answer.js";
import { paginate } from "./pagination.js";
import {
  attemptFromRow,
  circuitFromRow,
  deadLetterEventFromRow,
  deadLetterFromRow,
  deliveryFromRow,
  overflowFromRow,
  type Row,
} from "./rows.js";

/** What hookline writes as the actor of what it does by itself. */
export const HOOKLINE_ACTOR = "hookline";

/** The WHERE terms of a dead-letter filter (shared by listing and by replay job selection). */
export function deadLetterFilter(q: Omit<DeadLetterQuery, keyof PageQuery>): {
  where: string[];
  params: unknown[];
} {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (term: string, value: unknown) => {
    where.push(term);
    params.push(value);
  };
  // A message's records are a handful, found through dead_letters_by_message. With the
  // application or endpoint named too, SQLite (which keeps no statistics here) walked their index
  // instead, in id order to spare a sort: every record they ever had, for each page. A unary +
  // keeps those terms off an index.
  const not = q.messageId ? "+" : "";
  if (q.appId) add(`${not}app_id = ?`, q.appId);
  if (q.endpointId) add(`${not}endpoint_id = ?`, q.endpointId);
  if (q.messageId) add("message_id = ?", q.messageId);
  if (q.states?.length) add("state IN (SELECT value FROM json_each(?))", JSON.stringify(q.states));
  if (q.failureClass) add("failure_class = ?", q.failureClass);
  if (q.eventType) add("event_type = ?", q.eventType);
  if (q.since !== undefined) add("created_at >= ?", q.since);
  if (q.until !== undefined) add("created_at < ?", q.until);
  return { where, params };
}

/** Synchronous dead-letter operations; `SqliteStore` wraps each call in its error mapping. */
export class DeadLetters {
  constructor(
    private readonly db: Db,
    private readonly s: DeadLetterStatements,
    private readonly limits: StoreLimits,
  ) {}

  // ---- inside recordAttempts' transaction ---------------------------------------------------

  /** A delivery was given up on: a new open record, or a tombstone if its endpoint is full. */
  recordDead(o: DeliveryOutcome, failureClass: DeadLetter["failureClass"], reason: string) {
    const a = o.attempt;
    const depth = Number((this.s.depthOf.get(o.endpointId) as Row | undefined)?.open ?? 0);
    const base = { appId: o.appId, endpointId: o.endpointId, deliveryId: o.deliveryId, at: o.at };
    if (depth >= this.limits.maxOpenDeadLettersPerEndpoint) {
      const id = newId("dlq", o.at);
      this.s.insertOverflow.run({
        id,
        delivery: o.deliveryId,
        cls: failureClass,
        reason,
        at: o.at,
      });
      this.s.countOverflow.run(o.endpointId, o.at);
      const detail =
        `not kept: the endpoint has ${depth} open records ` +
        `(cap ${this.limits.maxOpenDeadLettersPerEndpoint}); ${reason}`;
      const change: DeadLetterChange = {
        ...base,
        kind: "overflowed",
        deadLetterId: id,
        actor: HOOKLINE_ACTOR,
        detail,
      };
      return change;
    }
    const id = newId("dlq", o.at);
    const final = finalAnswer(a ?? this.lastAttempt(o));
    this.s.insertRecord.run({
      id,
      delivery: o.deliveryId,
      cls: failureClass,
      reason,
      status: final.status,
      error: final.error,
      headers: JSON.stringify(o.signatureHeaders),
      at: o.at,
    });
    this.event(id, o.at, HOOKLINE_ACTOR, "dead_lettered", `${failureClass}: ${reason}`, {});
    const change: DeadLetterChange = {
      ...base,
      kind: "recorded",
      deadLetterId: id,
      actor: HOOKLINE_ACTOR,
      detail: reason,
    };
    return change;
  }

  /** The delivery's latest recorded attempt, for a delivery ended without a request. */
  private lastAttempt(o: DeliveryOutcome): FinalAnswerSource | null {
    const row = this.s.lastAttempt.get(o.messageId, o.deliveryId) as Row | undefined;
    return row ? attemptFromRow(row) : null;
  }

  /** A resend delivered the message: its open records for the endpoint are resolved. */
  resolveDelivered(o: DeliveryOutcome): DeadLetterChange[] {
    const rows = this.s.resolveDelivered.all({
      message: o.messageId,
      endpoint: o.endpointId,
      now: o.at,
    }) as Row[];
    return rows.map((row) => {
      const change = resolvedByResend(String(row.id), o, HOOKLINE_ACTOR);
      this.event(change.deadLetterId, o.at, change.actor, "resolved", change.detail, {
        delivery: o.deliveryId,
      });
      return change;
    });
  }

  /** A replay delivery's one attempt is in: update the record it replays, and its job. */
  recordReplay(deadLetterId: string, o: DeliveryOutcome): DeadLetterChange[] {
    const row = this.s.get.get(deadLetterId) as Row | undefined;
    if (!row) return [];
    const record = deadLetterFromRow(row);
    const request = this.s.requestOf.get(o.deliveryId) as Row | undefined;
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
    this.s.finishReplay.run({
      id: deadLetterId,
      state,
      failed,
      at: o.attempt?.at ?? null,
      now: o.at,
    });
    const refs = { delivery: o.deliveryId, job: jobId };
    // Unsent, it is no result of the job's either (no part of a canary): it counts as withdrawn,
    // and the record's history and the change announced say so too, as the job does.
    const item = replayEnding(ok, sent);
    const { action, kind } = REPLAY_ENDED[item];
    this.event(deadLetterId, o.at, actor, action, result, refs);
    const done = this.s.jobItemDone.get({
      state: item,
      detail: result,
      now: o.at,
      delivery: o.deliveryId,
    }) as Row | undefined;
    if (done) {
      this.s.countJobResult.run({
        ok: ok ? 1 : 0,
        failed: item === "failed" ? 1 : 0,
        withdrawn: item === "withdrawn" ? 1 : 0,
        now: o.at,
        job: done.job_id,
      });
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
      this.event(deadLetterId, o.at, HOOKLINE_ACTOR, "abandoned", why, refs);
      changes.push({ ...base, kind: "abandoned", actor: HOOKLINE_ACTOR, detail: why });
    }
    return changes;
  }

  // ---- replays and decisions ----------------------------------------------------------------

  /** `kept`: a keyed request's answer, kept on its key in the replay's transaction. */
  enqueueReplay(req: ReplayRequest, kept?: KeptAnswer<ReplayEnqueued>): ReplayEnqueued {
    return this.db
      .transaction(() => {
        const queued = this.startReplay(req, null);
        if (kept) keepAnswer(this.s.keepAnswer, kept, queued);
        return queued;
      })
      .immediate();
  }

  /**
   * Within a transaction: open (or, for a single replay, resolved) → replaying, plus the replay
   * delivery; a job's replay (`jobId`) takes open records only.
   */
  startReplay(req: ReplayRequest, jobId: string | null): ReplayEnqueued {
    const row = this.s.get.get(req.deadLetterId) as Row | undefined;
    if (!row) return { ok: false, record: null };
    const before = deadLetterFromRow(row);
    const moved = this.s.startReplay.run({
      id: req.deadLetterId,
      abandonAfter: req.abandonAfter,
      now: req.now,
      single: jobId === null ? 1 : 0,
    }).changes;
    if (moved === 0) return { ok: false, record: before };
    // As with new messages: an open circuit holds the replay until its probe.
    const circuit = this.s.circuitOf.get(before.endpointId) as Row | undefined;
    const probeAt = circuit?.state === "open" ? Number(circuit.next_probe_at ?? 0) : 0;
    const due = Math.max(req.now, probeAt);
    this.s.insertReplayDelivery.run({
      id: req.deliveryId,
      app: before.appId,
      message: before.messageId,
      endpoint: before.endpointId,
      due,
      now: req.now,
      record: before.id,
    });
    const queued =
      due > req.now
        ? `queued behind the circuit's probe at ${new Date(due).toISOString()}`
        : "queued";
    this.event(req.deadLetterId, req.now, req.actor, "replay_requested", queued, {
      note: req.note,
      delivery: req.deliveryId,
      job: jobId,
    });
    const delivery = deliveryFromRow(this.s.delivery.get(req.deliveryId) as Row);
    return { ok: true, delivery, record: this.getDeadLetter(req.deadLetterId)! };
  }

  decide(req: DeadLetterDecision, to: "resolved" | "abandoned"): DeadLetterDecided {
    const from: DeadLetterState[] = to === "resolved" ? ["open", "abandoned"] : ["open"];
    return this.db
      .transaction((): DeadLetterDecided => {
        const moved = this.s.decide.run({
          id: req.id,
          to,
          now: req.now,
          from: JSON.stringify(from),
        }).changes;
        const record = this.getDeadLetter(req.id);
        if (moved === 0 || !record) return { ok: false, record };
        this.event(req.id, req.now, req.actor, to, `${record.state} by ${req.actor}`, {
          note: req.note,
        });
        return { ok: true, record };
      })
      .immediate();
  }

  // ---- read models --------------------------------------------------------------------------

  getDeadLetter(id: string): DeadLetter | null {
    const row = this.s.get.get(id) as Row | undefined;
    return row ? deadLetterFromRow(row) : null;
  }

  findByDelivery(deliveryId: string): DeadLetter | null {
    const row = this.s.byDelivery.get(deliveryId) as Row | undefined;
    return row ? deadLetterFromRow(row) : null;
  }

  reasonsOf(messageId: string, deliveryIds: readonly string[]): Map<string, string> {
    const found = new Map<string, string>();
    if (deliveryIds.length === 0) return found;
    const q = { message: messageId, deliveries: JSON.stringify(deliveryIds) };
    for (const r of this.s.reasonsOf.all(q) as Row[]) {
      const reason = String(r.reason);
      found.set(String(r.delivery_id), r.unsent === 1 ? unsentReason(reason) : reason);
    }
    return found;
  }

  getRecord(id: string): DeadLetterRecord | null {
    const record = this.getDeadLetter(id);
    if (!record) return null;
    const message = this.s.payloadOf.get(record.messageId) as Row | undefined;
    const attempts = this.s.attemptsOf.all({
      delivery: record.deliveryId,
      id,
      message: record.messageId,
    }) as Row[];
    const history = this.s.historyOf.all(id) as Row[];
    return {
      ...record,
      payload: message ? (message.payload as Buffer) : null,
      attempts: attempts.map(attemptFromRow),
      history: history.map(deadLetterEventFromRow),
    };
  }

  list(q: DeadLetterQuery): Page<DeadLetter> {
    const { where, params } = deadLetterFilter(q);
    return paginate(
      this.db,
      { select: "SELECT * FROM dead_letters", where, params },
      "id",
      q,
      deadLetterFromRow,
      (d) => d.id,
    );
  }

  summary(q: { appId?: string }): DeadLetterSummaryRow[] {
    const rows = this.s.summary.all({ app: q.appId ?? null }) as Row[];
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

  listOverflow(q: PageQuery & { appId?: string; endpointId?: string }): Page<DeadLetterOverflow> {
    const { where, params } = deadLetterFilter({ appId: q.appId, endpointId: q.endpointId });
    return paginate(
      this.db,
      { select: "SELECT * FROM dead_letter_overflow", where, params },
      "id",
      { ...q, order: q.order ?? "descending" },
      overflowFromRow,
      (o) => o.id,
    );
  }

  /** Appends one history entry. */
  event(
    record: string,
    at: number,
    actor: string,
    action: DeadLetterEvent["action"],
    result: string,
    refs: { note?: string | null; delivery?: string | null; job?: string | null },
  ): void {
    this.s.insertEvent.run({
      record,
      at,
      actor,
      action,
      result,
      note: refs.note ?? null,
      delivery: refs.delivery ?? null,
      job: refs.job ?? null,
    });
  }
}
