/** Messages and their deliveries: accepting and fanning out, claiming, and recording outcomes. */
import { ignoredRetryAfterText } from "../ignored-retry-after.js";
import type pg from "pg";
import type { Delivery, Message } from "../../domain/types.js";
import { firstIdAt } from "../../ids.js";
import type {
  AcceptResult,
  ClaimedDelivery,
  ContentQuery,
  DeadLetterChange,
  DeliveryOutcome,
  DueEndpoints,
  DueEndpointsRequest,
  EndpointMessage,
  EndpointMessageQuery,
  MessageQuery,
  NewMessage,
  Page,
  RecordedOutcomes,
  Release,
  ScanResult,
  Store,
  PauseLadder,
} from "../port.js";
import { addToStats, type StatsDelta } from "../endpoint-stats.js";
import { acceptedMessage, dueEndpointsFrom } from "../row-mappers.js";
import { endpointMessageFromRow, endpointMessages, latestDelivery } from "../endpoint-reads.js";
import {
  fillPayloads,
  headFromRow,
  messageHeadColumns,
  payloadIds,
  withinPayloadBytes,
  type Sized,
} from "../message-heads.js";
import {
  all,
  exec,
  one,
  Params,
  retried,
  tx,
  type Conn,
  type LandedCheck,
  type Row,
  type Sql,
} from "./database.js";
import type { DeadLetters } from "./dead-letters.js";
import { keepAnswer, withKeptAnswer } from "./kept-answer.js";
import { matches } from "./fan-out.js";
import { messageConditions, paginate } from "./pagination.js";
import { deliveryFromRow, messageFromRow, toJson } from "./rows.js";
import type { DELIVERIES } from "./statements.js";

export type ClaimRequest = Parameters<Store["claimDue"]>[0];
export type ScanRequest = Parameters<Store["scanDue"]>[0];
export type ResendRequest = Parameters<Store["enqueueResend"]>[0];
type Statements = { readonly [K in keyof typeof DELIVERIES]: Sql };

/** The most endpoints one look by endpoint (`dueEndpoints`) reads. */
const ENDPOINT_WINDOW = 1_024;

/**
 * Whether an accept whose COMMIT answer was lost stored its message after all: then the caller is
 * answered as accepted, rather than told nothing was and retrying into a duplicate.
 */
const messageLanded: LandedCheck<AcceptResult> = async (result, pool) => {
  if (!result.created) return false;
  const found = await pool.query("SELECT 1 FROM messages WHERE id = $1", [result.message.id]);
  return found.rowCount === 1;
};

/** Message and delivery operations; `PostgresStore` wraps each call in its error mapping. */
export class Deliveries {
  constructor(
    private readonly pool: pg.Pool,
    private readonly deadLetters: DeadLetters,
    /** DELIVERIES, prepared or as text (see `PostgresOptions.preparedStatements`). */
    private readonly sql: Statements,
  ) {}

  // ---- messages -----------------------------------------------------------------------------

  acceptMessage(msg: NewMessage): Promise<AcceptResult> {
    return tx(
      this.pool,
      async (c): Promise<AcceptResult> => {
        const accepted = await this.acceptRows(c, msg);
        if (msg.keyAnswer) await keepAnswer(c, msg.keyAnswer, accepted, this.sql.keepAnswer);
        return accepted;
      },
      "write",
      messageLanded,
    );
  }

  private async acceptRows(c: pg.PoolClient, msg: NewMessage): Promise<AcceptResult> {
    const insert = () =>
      exec(c, this.sql.insertMessage, [
        msg.id,
        msg.appId,
        msg.eventType,
        msg.eventId,
        toJson(msg.channels),
        toJson(msg.tags),
        msg.payload,
        msg.now,
        msg.deliverAt ?? null,
      ]);
    while ((await insert()) === 0) {
      // Only a repeated eventId conflicts (ON CONFLICT names its index); the first one stands.
      const existing = await one(c, this.sql.findMessageByEventId, [msg.appId, msg.eventId]);
      if (existing) {
        return { message: messageFromRow(existing), created: false, deliveries: 0, taken: 0 };
      }
      // Retention took it between the two statements: the eventId is free again.
    }
    const ids: string[] = [];
    const endpoints: string[] = [];
    const due: number[] = [];
    for (const ep of await all(c, this.sql.fanOutTargets, [msg.appId])) {
      if (!matches(ep, msg)) continue;
      // An open circuit holds new deliveries until its probe, so they spend nothing meanwhile.
      const probeAt = ep.circuit_state === "open" ? Number(ep.next_probe_at ?? 0) : 0;
      ids.push(msg.newDeliveryId());
      endpoints.push(String(ep.id));
      due.push(Math.max(msg.dueAt, probeAt));
    }
    if (ids.length) {
      await exec(c, this.sql.insertDeliveries, [
        msg.appId,
        msg.id,
        "message",
        msg.now,
        ids,
        endpoints,
        due,
      ]);
    }
    const message = acceptedMessage(msg);
    return { message, created: true, deliveries: ids.length, taken: 0 };
  }

  async findMessages(
    appId: string,
    ids: readonly string[],
    content: ContentQuery = {},
  ): Promise<Message[]> {
    if (ids.length === 0) return [];
    if (content.withContent === false) {
      const rows = await all(this.pool, this.sql.findMessageHeads, [appId, ids]);
      return rows.map((row) => headFromRow(row, messageFromRow).item);
    }
    return (await all(this.pool, this.sql.findMessages, [appId, ids])).map(messageFromRow);
  }

  /** Each message's payload size as stored, read with its head columns, never its bytes. */
  async messagePayloadBytes(appId: string, ids: readonly string[]): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const rows = await all(this.pool, this.sql.findMessageHeads, [appId, ids]);
    return new Map(rows.map((row) => [row.id as string, Number(row.payload_bytes)]));
  }

  /** A page read by head columns, bounded by its payloads' sizes, and then those payloads read. */
  private async withContent<T>(
    appId: string,
    sized: Page<Sized<T>>,
    q: ContentQuery,
    messageOf: (item: T) => Message,
  ): Promise<Page<T>> {
    const page = withinPayloadBytes(sized, q, (item) => messageOf(item).id);
    const found = await this.findMessages(appId, payloadIds(page, q, messageOf));
    return fillPayloads(page, messageOf, found);
  }

  async findMessage(appId: string, idOrEventId: string): Promise<Message | null> {
    const row = await one(this.pool, this.sql.findMessage, [appId, idOrEventId]);
    return row ? messageFromRow(row) : null;
  }

  async listMessages(appId: string, q: MessageQuery): Promise<Page<Message>> {
    const params = new Params();
    const where = [`app_id = ${params.add(appId)}`, ...messageConditions(q, "messages", params)];
    if (q.before !== undefined) where.push(`created_at < ${params.add(q.before)}`);
    if (q.after !== undefined) {
      // And from the first id made after it on (see firstIdAt): by time alone, an ascending list
      // walked every older message of the application, a descending one every newer.
      where.push(`created_at > ${params.add(q.after)}`);
      where.push(`id >= ${params.add(firstIdAt("msg", q.after + 1))}`);
    }
    const select = `SELECT ${messageHeadColumns("messages", "octet_length")} FROM messages`;
    const sized = await paginate(
      this.pool,
      { select, where, params },
      "id",
      { ...q, order: q.order ?? "descending" },
      (row) => headFromRow(row, messageFromRow),
      (m) => m.item.id,
    );
    return this.withContent(appId, sized, q, (m) => m);
  }

  async listEndpointMessages(q: EndpointMessageQuery): Promise<Page<EndpointMessage>> {
    const params = new Params();
    const where = [
      `m.app_id = ${params.add(q.appId)}`,
      `d.endpoint_id = ${params.add(q.endpointId)}`,
      latestDelivery(""),
      ...messageConditions(q, "m", params),
    ];
    if (q.state) where.push(`d.state = ${params.add(q.state)}`);
    if (q.before !== undefined) where.push(`m.created_at < ${params.add(q.before)}`);
    if (q.after !== undefined) {
      where.push(`m.created_at > ${params.add(q.after)}`);
      where.push(`m.id >= ${params.add(firstIdAt("msg", q.after + 1))}`);
    }
    const sized = await paginate(
      this.pool,
      { select: endpointMessages("octet_length"), where, params },
      "m.id",
      { ...q, order: q.order ?? "descending" },
      (row) => endpointMessageFromRow(row, messageFromRow),
      (m) => m.item.message.id,
    );
    return this.withContent(q.appId, sized, q, (m) => m.message);
  }

  enqueueResend(input: ResendRequest): Promise<Delivery | null> {
    const write = async (c: Conn) => {
      const row = await one(c, this.sql.insertResend, [
        input.id,
        input.appId,
        input.messageId,
        input.endpointId,
        input.now,
      ]);
      return row ? deliveryFromRow(row) : null;
    };
    return withKeptAnswer(this.pool, write, input.keyAnswer);
  }

  // ---- the engine's side --------------------------------------------------------------------

  recoverInflight(now: number): Promise<number> {
    return exec(this.pool, this.sql.recoverInflight, [now]);
  }

  /** The claim, with its payloads, in one statement (see `DELIVERIES.claim`). */
  claimDue(req: ClaimRequest): Promise<ClaimedDelivery[]> {
    return this.claim(req, Number.MIN_SAFE_INTEGER);
  }

  /**
   * The scan walks from the position's due time and in one statement, however far: on
   * PostgreSQL the walk is the database's work, not the event loop's. Rows due at that time are
   * walked again (the position's row is not read).
   */
  async scanDue(req: ScanRequest): Promise<ScanResult> {
    const claimed = await this.claim(req, req.from.due);
    if (claimed.length < req.limit) return { claimed, reached: null };
    const last = claimed[claimed.length - 1]!.dueAt;
    return { claimed, reached: { due: last, row: Number.MIN_SAFE_INTEGER } };
  }

  private async claim(req: ClaimRequest, dueFrom: number): Promise<ClaimedDelivery[]> {
    const found = await retried(() => all(this.pool, ...claimStatement(this.sql, req, dueFrom)));
    const contended: string[] = [];
    const out: ClaimedDelivery[] = [];
    // Deliveries of one message share one copy of its payload.
    const payloads = new Map<string, Buffer>();
    for (const r of found) {
      if (r.kind === "lost") {
        contended.push(String(r.endpoint_id));
        continue;
      }
      // Deleting an application takes its messages with its deliveries, under the same locks;
      // a delivery without its message has nothing to send.
      if (r.payload == null) continue;
      const messageId = String(r.message_id);
      let payload = payloads.get(messageId);
      if (!payload) payloads.set(messageId, (payload = r.payload as Buffer));
      out.push({
        id: String(r.id),
        appId: String(r.app_id),
        messageId,
        endpointId: String(r.endpoint_id),
        origin: r.origin as Delivery["origin"],
        attemptCount: Number(r.attempt_count),
        firstAttemptAt: r.first_attempt_at == null ? null : Number(r.first_attempt_at),
        lastDelayMs: r.last_delay_ms == null ? null : Number(r.last_delay_ms),
        dueAt: Number(r.next_attempt_at),
        eventType: String(r.event_type),
        payload,
        ...(req.worker ? { claimedBy: req.worker.id } : {}),
      });
    }
    if (contended.length) req.worker?.onContended(contended);
    // RETURNING gives no order guarantee; the engine sends oldest due first.
    return out.sort((a, b) => a.dueAt - b.dueAt);
  }

  async dueEndpoints(req: DueEndpointsRequest): Promise<DueEndpoints> {
    const rows = await all(this.pool, this.sql.dueEndpoints, [req.after, ENDPOINT_WINDOW]);
    return dueEndpointsFrom(rows, req, ENDPOINT_WINDOW);
  }

  async nextDueAt(excludeEndpoints: readonly string[], after?: number): Promise<number | null> {
    const row = await one(this.pool, this.sql.nextDue, [
      [...excludeEndpoints],
      after ?? Number.MIN_SAFE_INTEGER,
    ]);
    return row?.at == null ? null : Number(row.at);
  }

  /** Records a batch of outcomes, plain ones in one statement, others in one transaction. */
  async recordAttempts(outcomes: readonly DeliveryOutcome[]): Promise<RecordedOutcomes> {
    // A delivery recorded twice in one batch keeps its first outcome, as one at a time would.
    const seen = new Set<string>();
    const batch = outcomes.filter((o) => !seen.has(o.deliveryId) && seen.add(o.deliveryId));
    const recorded = batch.every(plain)
      ? await retried(() => this.recordPlain(batch))
      : await this.recordInTransaction(batch);
    if (recorded.kept.length < batch.length) {
      recorded.kept.push(...(await this.recordedBefore(batch, recorded.kept)));
    }
    return recorded;
  }

  /**
   * The deliveries of outcomes that moved nothing now but whose attempt is stored: the same
   * outcome recorded by an earlier call, whose commit's answer was lost (the caller tried again).
   */
  private async recordedBefore(
    batch: readonly DeliveryOutcome[],
    kept: readonly string[],
  ): Promise<string[]> {
    const done = new Set(kept);
    const others = batch.filter((o) => o.attempt !== null && !done.has(o.deliveryId));
    if (others.length === 0) return [];
    const rows = await all(this.pool, this.sql.storedAttempts, [others.map((o) => o.attempt!.id)]);
    const stored = new Set(rows.map((r: Row) => String(r.id)));
    return others.filter((o) => stored.has(o.attempt!.id)).map((o) => o.deliveryId);
  }

  /**
   * One transaction for the batch: the deliveries move on in one statement, the attempts go in
   * in one statement, then the dead-letter side effects in order, then the endpoint stats.
   */
  private recordInTransaction(batch: readonly DeliveryOutcome[]): Promise<RecordedOutcomes> {
    return tx(this.pool, async (c) => {
      // In the order deleting an endpoint takes them (the endpoint, jobs, records, deliveries),
      // so the two never wait on each other: the batch's endpoints (which a 410 disables, and
      // whose dead-letter depth a give-up counts), then the jobs and records of its replays
      // (known by their attempt, or, ended without one, possibly one), then the deliveries.
      await exec(c, this.sql.lockEndpoints, [[...new Set(batch.map((o) => o.endpointId))]]);
      const replays = batch.filter((o) => o.attempt === null || o.attempt.trigger === "replay");
      await this.deadLetters.lockReplaysOf(
        c,
        replays.map((o) => o.deliveryId),
      );
      const resent = batch.filter((o) => o.resend && o.next.kind === "succeeded");
      await this.deadLetters.lockOpenOf(c, [...new Set(resent.map((o) => o.messageId))]);
      const moved = await this.advance(c, batch);
      const recorded = batch.filter((o) => moved.has(o.deliveryId));
      await this.insertAttempts(c, recorded);
      const changes: DeadLetterChange[] = [];
      const stats = new Map<string, StatsDelta>();
      for (const o of recorded) {
        const next = o.next;
        const deadLetterId = moved.get(o.deliveryId);
        // A replay's outcome belongs to the record it replays; it never makes a new one.
        if (deadLetterId != null && next.kind !== "retry") {
          changes.push(...(await this.deadLetters.recordReplay(c, deadLetterId, o)));
        } else if (next.kind === "dead") {
          changes.push(await this.deadLetters.recordDead(c, o, next.failureClass, next.reason));
        } else if (next.kind === "succeeded" && o.resend) {
          changes.push(...(await this.deadLetters.resolveDelivered(c, o)));
        }
        if (o.disableEndpoint) {
          await exec(c, this.sql.disableEndpoint, [o.disableEndpoint, o.at, o.endpointId]);
          await exec(c, this.sql.replaysDueNow, [o.at, o.endpointId]);
        }
        addToStats(stats, o);
      }
      if (stats.size) {
        // In endpoint order, so two batches at once lock the stats rows in the same order.
        const rows = [...stats].sort(([a], [b]) => (a < b ? -1 : 1));
        await exec(c, this.sql.bumpStats, [
          rows.map(([id]) => id),
          rows.map(([, s]) => s.honoured),
          rows.map(([, s]) => s.capped),
          rows.map(([, s]) => s.ignored),
          rows.map(([, s]) => s.lastSuccessAt),
        ]);
      }
      return { kept: recorded.map((o) => o.deliveryId), changes };
    });
  }

  /** A batch of plain outcomes (see `plain`) in one statement; it changes no dead letter. */
  private async recordPlain(batch: readonly DeliveryOutcome[]): Promise<RecordedOutcomes> {
    const a = batch.map((o) => o.attempt!);
    const moved = await all(this.pool, this.sql.recordPlain, [
      ...moveColumns(batch),
      a.map((x) => x.id),
      ...attemptColumns(a),
      batch.map((o) => o.retryAfter),
    ]);
    return { kept: moved.map((r: Row) => String(r.id)), changes: [] };
  }

  /** Moves each still-claimed delivery on; returns those moved, with their dead_letter_id. */
  private async advance(
    c: Conn,
    batch: readonly DeliveryOutcome[],
  ): Promise<Map<string, string | null>> {
    const rows = await all(c, this.sql.advance, [
      ...moveColumns(batch),
      batch.map((o) => o.attempt !== null),
    ]);
    return new Map(
      rows.map((r: Row) => [
        String(r.id),
        r.dead_letter_id == null ? null : String(r.dead_letter_id),
      ]),
    );
  }

  private async insertAttempts(c: Conn, recorded: readonly DeliveryOutcome[]): Promise<void> {
    const made = recorded.filter((o) => o.attempt !== null);
    if (made.length === 0) return;
    const a = made.map((o) => o.attempt!);
    await exec(c, this.sql.insertAttempts, [
      a.map((x) => x.id),
      made.map((o) => o.deliveryId),
      a.map((x) => x.at),
      ...attemptColumns(a),
    ]);
  }

  async releaseDeliveries(releases: readonly Release[]): Promise<void> {
    // The first release of a delivery wins, as one at a time would.
    const seen = new Set<string>();
    const first = releases.filter((r) => !seen.has(r.deliveryId) && seen.add(r.deliveryId));
    await exec(this.pool, this.sql.release, [
      first.map((r) => r.deliveryId),
      first.map((r) => r.at),
      first.map((r) => r.claimedBy ?? null),
    ]);
  }

  pauseEndpoint(endpointId: string, until: number, ladder: PauseLadder): Promise<number> {
    const { attempts, windowMs } = ladder;
    return exec(this.pool, this.sql.pauseEndpoint, [until, endpointId, attempts, windowMs]);
  }

  async getDelivery(id: string): Promise<Delivery | null> {
    const row = await one(this.pool, this.sql.getDelivery, [id]);
    return row ? deliveryFromRow(row) : null;
  }

  async listDeliveries(messageId: string): Promise<Delivery[]> {
    return (await all(this.pool, this.sql.deliveriesOfMessage, [messageId])).map(deliveryFromRow);
  }
}

/** The claim statement for a request: shared or not, one endpoint or the due index. */
function claimStatement(sql: Statements, req: ClaimRequest, dueFrom: number): [Sql, unknown[]] {
  const w = req.worker;
  if (req.endpointId !== undefined) {
    // An array of one: see ONE_ENDPOINT in statements.ts.
    const endpoint = [req.endpointId];
    return w
      ? [
          sql.claimOwnedForEndpoint,
          [req.now, endpoint, req.limit, req.leaseUntil, w.id, w.deadBefore],
        ]
      : [sql.claimForEndpoint, [req.now, endpoint, req.limit, req.leaseUntil]];
  }
  const common = [req.now, [...req.excludeEndpoints], req.limit, req.leaseUntil, dueFrom];
  return w ? [sql.claimOwned, [...common, w.id, w.deadBefore]] : [sql.claim, common];
}

/**
 * How each outcome moves its delivery on, one array per column: id, state, at, next, delay, and
 * the worker that claimed it.
 */
function moveColumns(batch: readonly DeliveryOutcome[]): unknown[][] {
  const next = batch.map((o) => o.next);
  return [
    batch.map((o) => o.deliveryId),
    next.map((n) => (n.kind === "retry" ? "pending" : n.kind)),
    batch.map((o) => o.at),
    next.map((n) => (n.kind === "retry" ? n.at : null)),
    next.map((n) => (n.kind === "retry" ? n.delayMs : null)),
    batch.map((o) => o.claimedBy ?? null),
  ];
}

/** Attempts' columns from the trigger on, one array each, in the order the statements take. */
function attemptColumns(a: readonly NonNullable<DeliveryOutcome["attempt"]>[]): unknown[][] {
  return [
    a.map((x) => x.trigger),
    a.map((x) => x.url),
    a.map((x) => x.status),
    a.map((x) => x.error),
    a.map((x) => x.errorDetail),
    a.map((x) => x.durationMs),
    a.map((x) => x.responseSnippet),
    a.map((x) => x.outcome),
    a.map((x) => x.retryAfterMs ?? null),
    a.map((x) => ignoredRetryAfterText(x.retryAfterIgnored)),
  ];
}

/**
 * An outcome whose recording touches no dead letter and no endpoint: an attempt, not of a replay
 * (only replays carry a dead letter), that succeeded or will be retried.
 */
function plain(o: DeliveryOutcome): boolean {
  return (
    o.attempt !== null &&
    o.attempt.trigger !== "replay" &&
    (o.next.kind === "succeeded" || o.next.kind === "retry") &&
    !o.disableEndpoint &&
    // A resend that succeeded resolves its message's open records (recordInTransaction).
    !(o.resend && o.next.kind === "succeeded")
  );
}
