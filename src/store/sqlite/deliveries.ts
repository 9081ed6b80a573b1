/** Messages and their deliveries: accepting and fanning out, claiming, and recording outcomes. */
import { ignoredRetryAfterText } from "../ignored-retry-after.js";
import type { Database as Db } from "better-sqlite3";
import type { Delivery, Message } from "../../domain/types.js";
import { firstIdAt } from "../../ids.js";
import {
  scanPassed,
  type AcceptResult,
  type ClaimedDelivery,
  type ContentQuery,
  type DeadLetterChange,
  type DeliveryOutcome,
  type DueEndpoints,
  type DueEndpointsRequest,
  type EndpointMessage,
  type EndpointMessageQuery,
  type MessageQuery,
  type NewMessage,
  type Page,
  type RecordedOutcomes,
  type Release,
  type ScanPosition,
  type ScanResult,
  type Store,
  type PauseLadder,
} from "../port.js";
import { addToStats, type StatsDelta } from "../endpoint-stats.js";
import {
  fillPayloads,
  headFromRow,
  messageHeadColumns,
  payloadIds,
  withinPayloadBytes,
  type Sized,
} from "../message-heads.js";
import { acceptedMessage, dueEndpointsFrom } from "../row-mappers.js";
import {
  BY_MESSAGE,
  endpointMessages,
  endpointMessageFromRow,
  latestDelivery,
} from "../endpoint-reads.js";
import type { DeadLetters } from "./dead-letters.js";
import { keepAnswer, withKeptAnswer } from "./kept-answer.js";
import { fanOutTarget, matches, type FanOutTarget } from "./fan-out.js";
import { messageConditions, paginate } from "./pagination.js";
import { deliveryFromRow, messageFromRow, toJson, type Row } from "./rows.js";
import { CLAIMED_AT, type DeliveryStatements } from "./statements.js";

export type ClaimRequest = Parameters<Store["claimDue"]>[0];
export type ScanRequest = Parameters<Store["scanDue"]>[0];

/**
 * The most index entries one scan walks past excluded endpoints. Stepping past a million due
 * rows of a full endpoint was one statement of 252–333 ms on the main thread (four runs, session
 * 14's host). A window of this size takes at most 3.2–4.7 ms there (2.2–2.7 ms on session 15's),
 * walked through subqueries and a second time to find where it ended; when one runs out, the
 * engine looks on by endpoint instead of walking the next. (Walked window by window, the million
 * rows were 245 scans and 517–708 ms in all; 2,048 made the steps shorter and the whole
 * 760–870 ms, 8,192 6 ms and 603 ms.)
 */
export const SCAN_WINDOW = 4_096;

/**
 * The most endpoints one look by endpoint (`dueEndpoints`) reads: about 1.5 µs each, two index
 * seeks, so a window holds the thread for about 1.5 ms.
 */
export const ENDPOINT_WINDOW = 1_024;

/** What accepting one message did, with the deliveries its intake took (handed over on commit). */
export type Accepted = AcceptResult & { handOver?: ClaimedDelivery[] };
export type ResendRequest = Parameters<Store["enqueueResend"]>[0];

/** Synchronous message and delivery operations; `SqliteStore` wraps each call in its error mapping. */
export class Deliveries {
  // The engine's two transactions, made once: better-sqlite3 builds a transaction function with
  // four wrappers and their properties, about 20 µs, more than a small claim's statement.
  private readonly claimTx: (req: ClaimRequest) => ClaimedDelivery[];
  private readonly scanTx: (req: ScanRequest) => ScanResult;
  private readonly recordTx: (outcomes: readonly DeliveryOutcome[]) => RecordedOutcomes;

  constructor(
    private readonly db: Db,
    private readonly s: DeliveryStatements,
    private readonly deadLetters: DeadLetters,
  ) {
    this.claimTx = db.transaction((req: ClaimRequest) => this.claimRows(req));
    this.scanTx = db.transaction((req: ScanRequest) => this.scanRows(req));
    this.recordTx = db.transaction((outcomes: readonly DeliveryOutcome[]) =>
      this.recordRows(outcomes),
    );
  }

  // ---- messages -----------------------------------------------------------------------------

  /**
   * Accepts messages one at a time for one group commit (see accept-batcher.ts). It runs inside
   * the batch's transaction, where nothing else can change endpoints, so each application's
   * fan-out targets are read and parsed once per batch rather than once per message. Deliveries
   * the message's intake takes are written claimed and returned in `handOver`, for the batcher to
   * hand over once the transaction has committed (made again if the batch is retried, so nothing
   * is counted as taken from a transaction that rolled back).
   */
  acceptor(): (msg: NewMessage) => Accepted {
    const targetsByApp = new Map<string, FanOutTarget[]>();
    const targetsOf = (appId: string): FanOutTarget[] => {
      let targets = targetsByApp.get(appId);
      if (!targets) {
        targets = (this.s.fanOutTargets.all(appId) as Row[]).map(fanOutTarget);
        targetsByApp.set(appId, targets);
      }
      return targets;
    };
    const takenFor = new Map<string, number>();
    let takenAll = 0;
    const acceptOne = (msg: NewMessage): Accepted => {
      if (msg.eventId !== null) {
        const existing = this.s.findMessageByEventId.get(msg.appId, msg.eventId) as Row | undefined;
        if (existing) {
          return { message: messageFromRow(existing), created: false, deliveries: 0, taken: 0 };
        }
      }
      this.s.insertMessage.run(
        msg.id,
        msg.appId,
        msg.eventType,
        msg.eventId,
        toJson(msg.channels),
        toJson(msg.tags),
        msg.payload,
        msg.now,
        msg.deliverAt ?? null,
      );
      let deliveries = 0;
      const handOver: ClaimedDelivery[] = [];
      for (const ep of targetsOf(msg.appId)) {
        if (!matches(ep, msg)) continue;
        deliveries++;
        const id = msg.newDeliveryId();
        const dueAt = Math.max(msg.dueAt, ep.probeAt);
        const forEndpoint = takenFor.get(ep.id) ?? 0;
        if (msg.intake && dueAt <= msg.now && msg.intake.room(ep.id, forEndpoint, takenAll) > 0) {
          const leaseUntil = msg.intake.leaseUntil();
          this.s.insertClaimedDelivery.run(
            id,
            msg.appId,
            msg.id,
            ep.id,
            dueAt,
            leaseUntil,
            msg.now,
          );
          takenFor.set(ep.id, forEndpoint + 1);
          takenAll++;
          handOver.push({
            id,
            appId: msg.appId,
            messageId: msg.id,
            endpointId: ep.id,
            origin: "message",
            attemptCount: 0,
            firstAttemptAt: null,
            lastDelayMs: null,
            dueAt,
            eventType: msg.eventType,
            payload: msg.payload,
          });
          continue;
        }
        this.s.insertDelivery.run(id, msg.appId, msg.id, ep.id, "message", dueAt, msg.now);
      }
      const message = acceptedMessage(msg);
      return { message, created: true, deliveries, taken: handOver.length, handOver };
    };
    return (msg) => {
      const accepted = acceptOne(msg);
      if (msg.keyAnswer) keepAnswer(this.s.keepAnswer, msg.keyAnswer, accepted);
      return accepted;
    };
  }

  findMessage(appId: string, idOrEventId: string): Message | null {
    const row = this.s.findMessage.get(appId, idOrEventId, idOrEventId) as Row | undefined;
    return row ? messageFromRow(row) : null;
  }

  findMessages(appId: string, ids: readonly string[], content: ContentQuery = {}): Message[] {
    if (ids.length === 0) return [];
    if (content.withContent === false) {
      const rows = this.s.findMessageHeads.all(appId, JSON.stringify(ids)) as Row[];
      return rows.map((row) => headFromRow(row, messageFromRow).item);
    }
    const rows = this.s.findMessages.all(appId, JSON.stringify(ids)) as Row[];
    return rows.map(messageFromRow);
  }

  /** Each message's payload size as stored, read with its head columns, never its bytes. */
  messagePayloadBytes(appId: string, ids: readonly string[]): Map<string, number> {
    if (ids.length === 0) return new Map();
    const rows = this.s.findMessageHeads.all(appId, JSON.stringify(ids)) as Row[];
    return new Map(rows.map((row) => [row.id as string, Number(row.payload_bytes)]));
  }

  /** A page read by head columns, bounded by its payloads' sizes, and then those payloads read. */
  private withContent<T>(
    appId: string,
    sized: Page<Sized<T>>,
    q: ContentQuery,
    messageOf: (item: T) => Message,
  ): Page<T> {
    const page = withinPayloadBytes(sized, q, (item) => messageOf(item).id);
    return fillPayloads(page, messageOf, this.findMessages(appId, payloadIds(page, q, messageOf)));
  }

  listMessages(appId: string, q: MessageQuery): Page<Message> {
    const conditions = messageConditions(q, "messages");
    const where = ["app_id = ?", ...conditions.where];
    const params: unknown[] = [appId, ...conditions.params];
    if (q.before !== undefined) {
      where.push("created_at < ?");
      params.push(q.before);
    }
    if (q.after !== undefined) {
      // And from the first id made after it on (see firstIdAt): by time alone, an ascending list
      // walked every older message of the application, a descending one every newer.
      where.push("created_at > ?", "id >= ?");
      params.push(q.after, firstIdAt("msg", q.after + 1));
    }
    const sized = paginate(
      this.db,
      { select: `SELECT ${messageHeadColumns("messages", "length")} FROM messages`, where, params },
      "id",
      { ...q, order: q.order ?? "descending" },
      (row) => headFromRow(row, messageFromRow),
      (m) => m.item.id,
    );
    return this.withContent(appId, sized, q, (m) => m);
  }

  listEndpointMessages(q: EndpointMessageQuery): Page<EndpointMessage> {
    const conditions = messageConditions(q, "m");
    const where = [
      "m.app_id = ?",
      "d.endpoint_id = ?",
      latestDelivery(BY_MESSAGE),
      ...conditions.where,
    ];
    const params: unknown[] = [q.appId, q.endpointId, ...conditions.params];
    if (q.state) {
      where.push("d.state = ?");
      params.push(q.state);
    }
    if (q.before !== undefined) {
      where.push("m.created_at < ?");
      params.push(q.before);
    }
    if (q.after !== undefined) {
      where.push("m.created_at > ?", "m.id >= ?");
      params.push(q.after, firstIdAt("msg", q.after + 1));
    }
    const sized = paginate(
      this.db,
      { select: endpointMessages("length"), where, params },
      "m.id",
      { ...q, order: q.order ?? "descending" },
      (row) => endpointMessageFromRow(row, messageFromRow),
      (m) => m.item.message.id,
    );
    return this.withContent(q.appId, sized, q, (m) => m.message);
  }

  enqueueResend(input: ResendRequest): Delivery | null {
    return withKeptAnswer(this.db, this.s.keepAnswer, () => this.resend(input), input.keyAnswer);
  }

  private resend(input: ResendRequest): Delivery | null {
    const waiting = this.s.bringForwardWaiting.get({
      message: input.messageId,
      endpoint: input.endpointId,
      now: input.now,
    }) as Row | undefined;
    if (waiting) return deliveryFromRow(waiting);
    const written = this.s.insertResend.run(
      input.id,
      input.appId,
      input.now,
      input.now,
      input.messageId,
      input.endpointId,
    ).changes;
    return written ? this.getDelivery(input.id) : null;
  }

  // ---- the engine's side --------------------------------------------------------------------

  recoverInflight(now: number): number {
    return this.s.recoverInflight.run({ now }).changes;
  }

  claimDue(req: ClaimRequest): ClaimedDelivery[] {
    return this.claimTx(req);
  }

  private claimRows(req: ClaimRequest): ClaimedDelivery[] {
    const rows = (
      req.endpointId !== undefined
        ? this.s.claimForEndpoint.all({
            lease: req.leaseUntil,
            now: req.now,
            endpoint: req.endpointId,
            limit: req.limit,
          })
        : this.s.claim.all({
            lease: req.leaseUntil,
            now: req.now,
            from: Number.MIN_SAFE_INTEGER,
            exclude: JSON.stringify(req.excludeEndpoints),
            limit: req.limit,
          })
    ) as unknown[][];
    return claimedFrom(rows);
  }

  scanDue(req: ScanRequest): ScanResult {
    return this.scanTx(req);
  }

  private scanRows(req: ScanRequest): ScanResult {
    const window = Math.max(SCAN_WINDOW, req.limit);
    const walk = { due: req.from.due, row: req.from.row, now: req.now, window };
    const params = {
      lease: req.leaseUntil,
      exclude: JSON.stringify(req.excludeEndpoints),
      limit: req.limit,
    };
    // Excluding nothing, the walk claims every row it steps on and so stops with the batch. It
    // starts at the position's due time: rows there that an earlier scan passed over (their
    // endpoint full then) are claimed now, as they would be through their endpoint's index.
    const rows = (
      req.excludeEndpoints.length === 0
        ? this.s.claim.all({ ...params, now: req.now, from: req.from.due })
        : this.s.scan.all({ ...params, ...walk })
    ) as unknown[][];
    const claimed = claimedFrom(rows);
    if (rows.length === req.limit) {
      // The walk stopped at the batch's last row in due order.
      let reached: ScanPosition = req.from;
      for (const r of rows) {
        const at = { due: Number(r[CLAIMED_AT.dueAt]), row: Number(r[CLAIMED_AT.rowid]) };
        if (scanPassed(at, reached)) reached = at;
      }
      return { claimed, reached };
    }
    // Short of a batch: either nothing else is due by now, or the window ran out first.
    if (req.excludeEndpoints.length === 0) return { claimed, reached: null };
    const end = this.s.scanEnd.get({ ...walk, skip: window - rows.length - 1 }) as
      { due: number; r: number } | undefined;
    return { claimed, reached: end ? { due: Number(end.due), row: Number(end.r) } : null };
  }

  dueEndpoints(req: DueEndpointsRequest): DueEndpoints {
    const rows = this.s.dueEndpoints.all({ after: req.after, window: ENDPOINT_WINDOW }) as Row[];
    return dueEndpointsFrom(rows, req, ENDPOINT_WINDOW);
  }

  nextDueAt(excludeEndpoints: readonly string[], after?: number): number | null {
    const row = this.s.nextDue.get({
      exclude: JSON.stringify(excludeEndpoints),
      after: after ?? Number.MIN_SAFE_INTEGER,
    }) as Row | undefined;
    return row?.at == null ? null : Number(row.at);
  }

  recordAttempts(outcomes: readonly DeliveryOutcome[]): RecordedOutcomes {
    return this.recordTx(outcomes);
  }

  private recordRows(outcomes: readonly DeliveryOutcome[]): RecordedOutcomes {
    const kept = new Set<string>();
    const changes: DeadLetterChange[] = [];
    const stats = new Map<string, StatsDelta>();
    for (const o of outcomes) {
      const a = o.attempt;
      const next = o.next;
      const state = next.kind === "retry" ? "pending" : next.kind;
      const nextAt = next.kind === "retry" ? next.at : null;
      const delay = next.kind === "retry" ? next.delayMs : null;
      const moved = (
        a
          ? this.s.advanceDelivery.get(state, o.at, o.at, nextAt, delay, o.deliveryId)
          : this.s.endWithoutAttempt.get(state, nextAt, delay, o.deliveryId)
      ) as Row | undefined;
      // A delivery that is no longer claimed (its endpoint was deleted) has nothing to record;
      // one whose attempt is stored had this very outcome recorded by an earlier call.
      if (!moved) {
        if (a && this.s.attemptStored.get(a.id)) kept.add(o.deliveryId);
        continue;
      }
      kept.add(o.deliveryId);
      if (a) {
        this.s.insertAttempt.run(
          a.id,
          o.deliveryId,
          o.appId,
          o.messageId,
          o.endpointId,
          a.at,
          a.trigger,
          a.url,
          a.status,
          a.error,
          a.errorDetail,
          a.durationMs,
          a.responseSnippet,
          a.outcome,
          a.retryAfterMs ?? null,
          ignoredRetryAfterText(a.retryAfterIgnored),
        );
      }
      // A replay's outcome belongs to the record it replays; it never makes a new one.
      if (moved.dead_letter_id != null && next.kind !== "retry") {
        changes.push(...this.deadLetters.recordReplay(String(moved.dead_letter_id), o));
      } else if (next.kind === "dead") {
        changes.push(this.deadLetters.recordDead(o, next.failureClass, next.reason));
      } else if (next.kind === "succeeded" && o.resend) {
        changes.push(...this.deadLetters.resolveDelivered(o));
      }
      if (o.disableEndpoint) {
        this.s.disableEndpoint.run(o.disableEndpoint, o.at, o.endpointId);
        this.s.replaysDueNow.run({ now: o.at, endpoint: o.endpointId });
      }
      addToStats(stats, o);
    }
    for (const [endpointId, s] of stats) {
      this.s.bumpStats.run(endpointId, s.honoured, s.capped, s.ignored, s.lastSuccessAt);
    }
    return { kept: [...kept], changes };
  }

  releaseDeliveries(releases: readonly Release[]): void {
    this.db.transaction(() => {
      for (const r of releases) this.s.release.run(r.at, r.deliveryId);
    })();
  }

  pauseEndpoint(endpointId: string, until: number, ladder: PauseLadder): number {
    const { attempts, windowMs } = ladder;
    return this.s.pauseEndpoint.run(until, endpointId, until, attempts, windowMs, until).changes;
  }

  getDelivery(id: string): Delivery | null {
    const row = this.s.getDelivery.get(id) as Row | undefined;
    return row ? deliveryFromRow(row) : null;
  }

  listDeliveries(messageId: string): Delivery[] {
    return (this.s.deliveriesOfMessage.all(messageId) as Row[]).map(deliveryFromRow);
  }
}

/** Claimed rows (in `CLAIMED_AT` order) as deliveries, oldest due first. */
function claimedFrom(rows: readonly unknown[][]): ClaimedDelivery[] {
  const at = CLAIMED_AT;
  // Deliveries of one message share one copy of its payload.
  const payloads = new Map<string, Buffer>();
  const out: ClaimedDelivery[] = [];
  for (const r of rows) {
    const messageId = String(r[at.messageId]);
    let payload = payloads.get(messageId);
    if (!payload) payloads.set(messageId, (payload = r[at.payload] as Buffer));
    const firstAttemptAt = r[at.firstAttemptAt];
    const lastDelayMs = r[at.lastDelayMs];
    out.push({
      id: String(r[at.id]),
      appId: String(r[at.appId]),
      messageId,
      endpointId: String(r[at.endpointId]),
      origin: r[at.origin] as Delivery["origin"],
      attemptCount: Number(r[at.attemptCount]),
      firstAttemptAt: firstAttemptAt == null ? null : Number(firstAttemptAt),
      lastDelayMs: lastDelayMs == null ? null : Number(lastDelayMs),
      dueAt: Number(r[at.dueAt]),
      eventType: String(r[at.eventType]),
      payload,
    });
  }
  // RETURNING gives no order guarantee; the engine sends oldest due first.
  return out.sort((a, b) => a.dueAt - b.dueAt);
}
