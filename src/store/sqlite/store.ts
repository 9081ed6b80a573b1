import type { Database as Db, Statement } from "better-sqlite3";
import type {
  Application,
  Attempt,
  CircuitRecord,
  DeadLetter,
  Delivery,
  Endpoint,
  EndpointStats,
  EventType,
  Message,
} from "../../domain/types.js";
import type { CircuitTransition } from "../../engine/breaker.js";
import { ConflictError, StoreUnavailableError } from "../../errors.js";
import { newId } from "../../ids.js";
import type {
  AcceptResult,
  AttemptQuery,
  ClaimedDelivery,
  DeliveryOutcome,
  IdempotencyBegin,
  IdempotencyState,
  MessageQuery,
  NewMessage,
  Page,
  PageQuery,
  Release,
  Store,
} from "../port.js";
import { openDatabase, type SqliteOptions } from "./database.js";
import { paginate } from "./pagination.js";
import {
  applicationFromRow,
  attemptFromRow,
  deadLetterFromRow,
  deliveryFromRow,
  endpointFromRow,
  eventTypeFromRow,
  messageFromRow,
  toJson,
} from "./rows.js";

type Row = Record<string, unknown>;

/** The embedded store: one SQLite file in WAL mode, used by one hookline process. */
export class SqliteStore implements Store {
  readonly kind = "sqlite" as const;
  private readonly db: Db;
  private readonly s: ReturnType<typeof prepare>;

  constructor(options: SqliteOptions) {
    this.db = openDatabase(options);
    this.s = prepare(this.db);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  async ping(): Promise<void> {
    this.run(() => this.db.prepare("SELECT 1").get());
  }

  // ---- applications -------------------------------------------------------------------------

  async createApplication(app: Application): Promise<Application> {
    this.run(() => this.s.insertApp.run(appParams(app)), "an application with this uid");
    return app;
  }

  async findApplication(idOrUid: string): Promise<Application | null> {
    const row = this.run(() => this.s.findApp.get(idOrUid, idOrUid) as Row | undefined);
    return row ? applicationFromRow(row) : null;
  }

  async listApplications(q: PageQuery): Promise<Page<Application>> {
    return this.run(() =>
      paginate(
        this.db,
        { select: "SELECT * FROM applications", where: [], params: [] },
        "id",
        q,
        applicationFromRow,
        (a) => a.id,
      ),
    );
  }

  async updateApplication(app: Application): Promise<Application> {
    this.run(() => this.s.updateApp.run(appParams(app)), "an application with this uid");
    return app;
  }

  async deleteApplication(id: string): Promise<void> {
    this.run(() =>
      this.db.transaction(() => {
        for (const table of ["attempts", "dead_letters", "deliveries", "messages"]) {
          this.db.prepare(`DELETE FROM ${table} WHERE app_id = ?`).run(id);
        }
        const eps = this.db.prepare("SELECT id FROM endpoints WHERE app_id = ?").all(id) as Row[];
        for (const ep of eps) this.deleteEndpointRows(String(ep.id));
        this.db.prepare("DELETE FROM applications WHERE id = ?").run(id);
      })(),
    );
  }

  // ---- endpoints ----------------------------------------------------------------------------

  async createEndpoint(ep: Endpoint): Promise<Endpoint> {
    this.run(() => this.s.insertEndpoint.run(endpointParams(ep)), "an endpoint with this uid");
    return ep;
  }

  async findEndpoint(appId: string, idOrUid: string): Promise<Endpoint | null> {
    const row = this.run(() => this.s.findEndpoint.get(appId, idOrUid, idOrUid) as Row | undefined);
    return row ? endpointFromRow(row) : null;
  }

  async getEndpoint(id: string): Promise<Endpoint | null> {
    const row = this.run(() => this.s.getEndpoint.get(id) as Row | undefined);
    return row ? endpointFromRow(row) : null;
  }

  async listEndpoints(appId: string, q: PageQuery): Promise<Page<Endpoint>> {
    return this.run(() =>
      paginate(
        this.db,
        { select: "SELECT * FROM endpoints", where: ["app_id = ?"], params: [appId] },
        "id",
        q,
        endpointFromRow,
        (e) => e.id,
      ),
    );
  }

  async updateEndpoint(ep: Endpoint): Promise<Endpoint> {
    this.run(() => this.s.updateEndpoint.run(endpointParams(ep)), "an endpoint with this uid");
    return ep;
  }

  async deleteEndpoint(appId: string, id: string): Promise<void> {
    this.run(() =>
      this.db.transaction(() => {
        const ok = this.db
          .prepare("SELECT 1 FROM endpoints WHERE id = ? AND app_id = ?")
          .get(id, appId);
        if (ok) this.deleteEndpointRows(id);
      })(),
    );
  }

  private deleteEndpointRows(id: string): void {
    for (const table of ["attempts", "dead_letters", "deliveries", "circuit_transitions"]) {
      this.db.prepare(`DELETE FROM ${table} WHERE endpoint_id = ?`).run(id);
    }
    this.db.prepare("DELETE FROM circuits WHERE endpoint_id = ?").run(id);
    this.db.prepare("DELETE FROM endpoint_stats WHERE endpoint_id = ?").run(id);
    this.db.prepare("DELETE FROM endpoints WHERE id = ?").run(id);
  }

  // ---- event types --------------------------------------------------------------------------

  async createEventType(et: EventType): Promise<EventType> {
    this.run(() => this.s.insertEventType.run(eventTypeParams(et)), "an event type with this name");
    return et;
  }

  async findEventType(name: string): Promise<EventType | null> {
    const row = this.run(() => this.s.findEventType.get(name) as Row | undefined);
    return row ? eventTypeFromRow(row) : null;
  }

  async listEventTypes(q: PageQuery & { includeArchived?: boolean }): Promise<Page<EventType>> {
    return this.run(() =>
      paginate(
        this.db,
        {
          select: "SELECT * FROM event_types",
          where: q.includeArchived ? [] : ["archived = 0"],
          params: [],
        },
        "name",
        q,
        eventTypeFromRow,
        (e) => e.name,
      ),
    );
  }

  async updateEventType(et: EventType): Promise<EventType> {
    this.run(() => this.s.updateEventType.run(eventTypeParams(et)));
    return et;
  }

  async deleteEventType(name: string): Promise<void> {
    this.run(() => this.db.prepare("DELETE FROM event_types WHERE name = ?").run(name));
  }

  // ---- idempotency --------------------------------------------------------------------------

  async beginIdempotent(req: IdempotencyBegin): Promise<IdempotencyState> {
    return this.run(() =>
      this.db
        .transaction((): IdempotencyState => {
          const row = this.s.getIdem.get(req.scope, req.key) as Row | undefined;
          if (row && Number(row.expires_at) > req.now) {
            if (row.fingerprint !== req.fingerprint) return { kind: "mismatch" };
            if (row.state === "done") {
              return { kind: "replay", status: Number(row.status), body: String(row.body) };
            }
            if (Number(row.locked_until) > req.now) return { kind: "in-progress" };
          }
          this.s.putIdem.run(
            req.scope,
            req.key,
            req.fingerprint,
            req.now + req.lockMs,
            req.now + req.ttlMs,
          );
          return { kind: "new" };
        })
        .immediate(),
    );
  }

  async finishIdempotent(scope: string, key: string, status: number, body: string): Promise<void> {
    this.run(() => this.s.finishIdem.run(status, body, scope, key));
  }

  async abandonIdempotent(scope: string, key: string): Promise<void> {
    this.run(() => this.s.dropIdem.run(scope, key));
  }

  // ---- messages -----------------------------------------------------------------------------

  async acceptMessage(msg: NewMessage): Promise<AcceptResult> {
    return this.run(() => this.acceptTx(msg));
  }

  private readonly acceptTx = (msg: NewMessage): AcceptResult =>
    this.db.transaction((): AcceptResult => {
      if (msg.eventId !== null) {
        const existing = this.s.findMessageByEventId.get(msg.appId, msg.eventId) as Row | undefined;
        if (existing) return { message: messageFromRow(existing), created: false, deliveries: 0 };
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
      );
      let deliveries = 0;
      for (const ep of this.s.fanOutTargets.all(msg.appId) as Row[]) {
        if (!matches(ep, msg)) continue;
        // An open circuit holds new deliveries until its probe, so they spend nothing meanwhile.
        const probeAt = ep.circuit_state === "open" ? Number(ep.next_probe_at ?? 0) : 0;
        this.s.insertDelivery.run(
          msg.newDeliveryId(),
          msg.appId,
          msg.id,
          ep.id,
          "message",
          Math.max(msg.dueAt, probeAt),
          msg.now,
        );
        deliveries++;
      }
      const message: Message = {
        id: msg.id,
        appId: msg.appId,
        eventType: msg.eventType,
        eventId: msg.eventId,
        channels: msg.channels,
        tags: msg.tags,
        payload: msg.payload,
        createdAt: msg.now,
      };
      return { message, created: true, deliveries };
    })();

  async findMessage(appId: string, idOrEventId: string): Promise<Message | null> {
    const row = this.run(
      () => this.s.findMessage.get(appId, idOrEventId, idOrEventId) as Row | undefined,
    );
    return row ? messageFromRow(row) : null;
  }

  async listMessages(appId: string, q: MessageQuery): Promise<Page<Message>> {
    const where = ["app_id = ?"];
    const params: unknown[] = [appId];
    if (q.eventTypes?.length) {
      where.push("event_type IN (SELECT value FROM json_each(?))");
      params.push(JSON.stringify(q.eventTypes));
    }
    if (q.channel) {
      where.push("EXISTS (SELECT 1 FROM json_each(messages.channels) WHERE value = ?)");
      params.push(q.channel);
    }
    if (q.before !== undefined) (where.push("created_at < ?"), params.push(q.before));
    if (q.after !== undefined) (where.push("created_at > ?"), params.push(q.after));
    return this.run(() =>
      paginate(
        this.db,
        { select: "SELECT * FROM messages", where, params },
        "id",
        { ...q, order: q.order ?? "descending" },
        messageFromRow,
        (m) => m.id,
      ),
    );
  }

  async enqueueResend(input: {
    id: string;
    appId: string;
    messageId: string;
    endpointId: string;
    now: number;
  }): Promise<Delivery> {
    this.run(() =>
      this.s.insertDelivery.run(
        input.id,
        input.appId,
        input.messageId,
        input.endpointId,
        "resend",
        input.now,
        input.now,
      ),
    );
    return (await this.getDelivery(input.id))!;
  }

  // ---- the engine's side --------------------------------------------------------------------

  async recoverInflight(now: number): Promise<number> {
    return this.run(() => this.s.recoverInflight.run({ now }).changes);
  }

  async claimDue(req: {
    now: number;
    limit: number;
    excludeEndpoints: readonly string[];
    leaseUntil: number;
  }): Promise<ClaimedDelivery[]> {
    return this.run(() => this.claimTx(req));
  }

  private readonly claimTx = (req: {
    now: number;
    limit: number;
    excludeEndpoints: readonly string[];
    leaseUntil: number;
  }): ClaimedDelivery[] =>
    this.db.transaction(() => {
      const rows = this.s.claim.all({
        lease: req.leaseUntil,
        now: req.now,
        exclude: JSON.stringify(req.excludeEndpoints),
        limit: req.limit,
      }) as Row[];
      const payloads = new Map<string, Row>();
      const out: ClaimedDelivery[] = [];
      for (const r of rows) {
        const messageId = String(r.message_id);
        let m = payloads.get(messageId);
        if (!m) {
          m = this.s.messageForDelivery.get(messageId) as Row;
          payloads.set(messageId, m);
        }
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
          eventType: String(m.event_type),
          payload: m.payload as Buffer,
        });
      }
      // RETURNING gives no order guarantee; the engine sends oldest due first.
      return out.sort((a, b) => a.dueAt - b.dueAt);
    })();

  async nextDueAt(excludeEndpoints: readonly string[]): Promise<number | null> {
    const row = this.run(
      () => this.s.nextDue.get(JSON.stringify(excludeEndpoints)) as Row | undefined,
    );
    return row?.at == null ? null : Number(row.at);
  }

  async recordAttempts(outcomes: readonly DeliveryOutcome[]): Promise<void> {
    if (outcomes.length) this.run(() => this.recordTx(outcomes));
  }

  private readonly recordTx = (outcomes: readonly DeliveryOutcome[]): void =>
    this.db.transaction(() => {
      const stats = new Map<string, { h: number; c: number; i: number; ok: number | null }>();
      for (const o of outcomes) {
        const a = o.attempt;
        const next = o.next;
        const moved = (a ? this.s.advanceDelivery : this.s.endWithoutAttempt).run({
          id: o.deliveryId,
          at: o.at,
          state: next.kind === "retry" ? "pending" : next.kind,
          next: next.kind === "retry" ? next.at : null,
          delay: next.kind === "retry" ? next.delayMs : null,
        }).changes;
        // A delivery that is no longer claimed (its endpoint was deleted) has nothing to record.
        if (moved === 0) continue;
        if (a) {
          this.s.insertAttempt.run({
            id: a.id,
            delivery: o.deliveryId,
            at: a.at,
            trigger: a.trigger,
            url: a.url,
            status: a.status,
            error: a.error,
            detail: a.errorDetail,
            duration: a.durationMs,
            snippet: a.responseSnippet,
            outcome: a.outcome,
          });
        }
        if (next.kind === "dead") {
          this.s.insertDeadLetter.run({
            id: newId("dlq", o.at),
            delivery: o.deliveryId,
            cls: next.failureClass,
            reason: next.reason,
            status: a?.status ?? null,
            error: a?.error ? `${a.error}${a.errorDetail ? `: ${a.errorDetail}` : ""}` : null,
            headers: JSON.stringify(o.signatureHeaders),
            at: o.at,
          });
        }
        if (o.disableEndpoint) this.s.disableEndpoint.run(o.disableEndpoint, o.at, o.endpointId);
        if (o.retryAfter || next.kind === "succeeded") {
          const s = stats.get(o.endpointId) ?? { h: 0, c: 0, i: 0, ok: null };
          if (o.retryAfter === "honoured") s.h++;
          if (o.retryAfter === "capped") s.c++;
          if (o.retryAfter === "ignored") s.i++;
          if (next.kind === "succeeded") s.ok = Math.max(s.ok ?? 0, o.at);
          stats.set(o.endpointId, s);
        }
      }
      for (const [endpointId, s] of stats) this.s.bumpStats.run(endpointId, s.h, s.c, s.i, s.ok);
    })();

  async releaseDeliveries(releases: readonly Release[]): Promise<void> {
    if (!releases.length) return;
    this.run(() =>
      this.db.transaction(() => {
        for (const r of releases) this.s.release.run(r.at, r.deliveryId);
      })(),
    );
  }

  async pauseEndpoint(endpointId: string, until: number): Promise<number> {
    return this.run(() => this.s.pauseEndpoint.run(until, endpointId, until).changes);
  }

  async getDelivery(id: string): Promise<Delivery | null> {
    const row = this.run(() => this.s.getDelivery.get(id) as Row | undefined);
    return row ? deliveryFromRow(row) : null;
  }

  async listDeliveries(messageId: string): Promise<Delivery[]> {
    const rows = this.run(() => this.s.deliveriesOfMessage.all(messageId) as Row[]);
    return rows.map(deliveryFromRow);
  }

  // ---- circuits and stats -------------------------------------------------------------------

  async saveCircuit(
    endpointId: string,
    c: CircuitRecord,
    transition: CircuitTransition | null,
  ): Promise<void> {
    this.run(() =>
      this.db.transaction(() => {
        this.s.saveCircuit.run({
          id: endpointId,
          state: c.state,
          since: c.since,
          reason: c.reason,
          probe: c.nextProbeAt,
          reopen: c.reopenCount,
        });
        if (transition) {
          this.s.insertTransition.run(
            endpointId,
            transition.from,
            transition.to,
            transition.at,
            transition.reason,
          );
        }
      })(),
    );
  }

  async loadCircuits(): Promise<Map<string, CircuitRecord>> {
    const rows = this.run(() => this.db.prepare("SELECT * FROM circuits").all() as Row[]);
    return new Map(rows.map((r) => [String(r.endpoint_id), circuitFromRow(r)]));
  }

  async getCircuit(endpointId: string): Promise<CircuitRecord | null> {
    const row = this.run(() => this.s.getCircuit.get(endpointId) as Row | undefined);
    return row ? circuitFromRow(row) : null;
  }

  async listCircuitTransitions(
    endpointId: string,
    limit: number,
  ): Promise<(CircuitTransition & { endpointId: string })[]> {
    const rows = this.run(() => this.s.transitions.all(endpointId, limit) as Row[]);
    return rows.map((r) => ({
      endpointId,
      from: r.from_state as CircuitTransition["from"],
      to: r.to_state as CircuitTransition["to"],
      at: Number(r.at),
      reason: String(r.reason),
    }));
  }

  async getEndpointStats(endpointId: string): Promise<EndpointStats> {
    const r = this.run(() => this.s.getStats.get(endpointId) as Row | undefined);
    return {
      retryAfter: {
        honoured: Number(r?.retry_after_honoured ?? 0),
        capped: Number(r?.retry_after_capped ?? 0),
        ignored: Number(r?.retry_after_ignored ?? 0),
      },
      lastSuccessAt: r?.last_success_at == null ? null : Number(r.last_success_at),
    };
  }

  // ---- read models --------------------------------------------------------------------------

  async listAttempts(q: AttemptQuery): Promise<Page<Attempt>> {
    const where = ["app_id = ?"];
    const params: unknown[] = [q.appId];
    if (q.endpointId) (where.push("endpoint_id = ?"), params.push(q.endpointId));
    if (q.messageId) (where.push("message_id = ?"), params.push(q.messageId));
    if (q.outcome === "success") where.push("outcome = 'success'");
    if (q.outcome === "fail") where.push("outcome <> 'success'");
    if (q.before !== undefined) (where.push("at < ?"), params.push(q.before));
    if (q.after !== undefined) (where.push("at > ?"), params.push(q.after));
    return this.run(() =>
      paginate(
        this.db,
        { select: "SELECT * FROM attempts", where, params },
        "id",
        { ...q, order: q.order ?? "descending" },
        attemptFromRow,
        (a) => a.id,
      ),
    );
  }

  async findAttempt(appId: string, attemptId: string): Promise<Attempt | null> {
    const row = this.run(() => this.s.findAttempt.get(attemptId, appId) as Row | undefined);
    return row ? attemptFromRow(row) : null;
  }

  async listDeadLetters(
    q: PageQuery & { appId?: string; endpointId?: string },
  ): Promise<Page<DeadLetter>> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.appId) (where.push("app_id = ?"), params.push(q.appId));
    if (q.endpointId) (where.push("endpoint_id = ?"), params.push(q.endpointId));
    return this.run(() =>
      paginate(
        this.db,
        { select: "SELECT * FROM dead_letters", where, params },
        "id",
        q,
        deadLetterFromRow,
        (d) => d.id,
      ),
    );
  }

  async findDeadLetterByDelivery(deliveryId: string): Promise<DeadLetter | null> {
    const row = this.run(() => this.s.deadLetterOfDelivery.get(deliveryId) as Row | undefined);
    return row ? deadLetterFromRow(row) : null;
  }

  /** Runs a synchronous database call, turning driver errors into hookline's error classes. */
  private run<T>(fn: () => T, uniqueWhat?: string): T {
    try {
      return fn();
    } catch (err) {
      const code = (err as { code?: string }).code ?? "";
      if (code.startsWith("SQLITE_CONSTRAINT") && uniqueWhat) {
        throw new ConflictError(`${uniqueWhat} already exists`, { cause: err });
      }
      if (
        !this.db.open ||
        /^SQLITE_(BUSY|LOCKED|READONLY|IOERR|FULL|CANTOPEN|CORRUPT|NOTADB)/.test(code)
      ) {
        throw new StoreUnavailableError(`SQLite store unavailable (${code || "closed"})`, {
          cause: err,
        });
      }
      throw err;
    }
  }
}

function matches(ep: Row, msg: NewMessage): boolean {
  const types = ep.filter_types == null ? null : (JSON.parse(String(ep.filter_types)) as string[]);
  if (types && types.length && !types.includes(msg.eventType)) return false;
  const channels = ep.channels == null ? null : (JSON.parse(String(ep.channels)) as string[]);
  if (channels && channels.length) {
    if (!msg.channels || !msg.channels.some((c) => channels.includes(c))) return false;
  }
  return true;
}

function circuitFromRow(r: Row): CircuitRecord {
  return {
    state: r.state as CircuitRecord["state"],
    since: Number(r.since),
    reason: r.reason == null ? null : String(r.reason),
    nextProbeAt: r.next_probe_at == null ? null : Number(r.next_probe_at),
    reopenCount: Number(r.reopen_count),
  };
}

function appParams(a: Application) {
  return {
    id: a.id,
    uid: a.uid,
    name: a.name,
    rate_limit: a.rateLimit,
    metadata: JSON.stringify(a.metadata),
    delivery_policy: toJson(a.deliveryPolicy),
    created_at: a.createdAt,
    updated_at: a.updatedAt,
  };
}

function endpointParams(e: Endpoint) {
  return {
    id: e.id,
    app_id: e.appId,
    uid: e.uid,
    url: e.url,
    description: e.description,
    version: e.version,
    disabled: e.disabled ? 1 : 0,
    disabled_reason: e.disabledReason,
    filter_types: toJson(e.filterTypes),
    channels: toJson(e.channels),
    headers: JSON.stringify(e.headers),
    metadata: JSON.stringify(e.metadata),
    rate_limit: e.rateLimit,
    secrets: JSON.stringify(e.secrets),
    delivery_policy: toJson(e.deliveryPolicy),
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  };
}

function eventTypeParams(e: EventType) {
  return {
    name: e.name,
    description: e.description,
    archived: e.archived ? 1 : 0,
    deprecated: e.deprecated ? 1 : 0,
    feature_flags: toJson(e.featureFlags),
    group_name: e.groupName,
    schemas: toJson(e.schemas),
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  };
}

/** Every hot statement, prepared once. */
function prepare(db: Db) {
  const p = (sql: string): Statement => db.prepare(sql);
  return {
    insertApp: p(`INSERT INTO applications
      (id, uid, name, rate_limit, metadata, delivery_policy, created_at, updated_at)
      VALUES (@id, @uid, @name, @rate_limit, @metadata, @delivery_policy, @created_at, @updated_at)`),
    updateApp: p(`UPDATE applications SET uid = @uid, name = @name, rate_limit = @rate_limit,
      metadata = @metadata, delivery_policy = @delivery_policy, updated_at = @updated_at
      WHERE id = @id`),
    findApp: p("SELECT * FROM applications WHERE id = ? OR uid = ? LIMIT 1"),
    insertEndpoint: p(`INSERT INTO endpoints (id, app_id, uid, url, description, version, disabled,
      disabled_reason, filter_types, channels, headers, metadata, rate_limit, secrets,
      delivery_policy, created_at, updated_at)
      VALUES (@id, @app_id, @uid, @url, @description, @version, @disabled, @disabled_reason,
      @filter_types, @channels, @headers, @metadata, @rate_limit, @secrets, @delivery_policy,
      @created_at, @updated_at)`),
    updateEndpoint: p(`UPDATE endpoints SET uid = @uid, url = @url, description = @description,
      version = @version, disabled = @disabled, disabled_reason = @disabled_reason,
      filter_types = @filter_types, channels = @channels, headers = @headers,
      metadata = @metadata, rate_limit = @rate_limit, secrets = @secrets,
      delivery_policy = @delivery_policy, updated_at = @updated_at
      WHERE id = @id AND app_id = @app_id`),
    findEndpoint: p("SELECT * FROM endpoints WHERE app_id = ? AND (id = ? OR uid = ?) LIMIT 1"),
    getEndpoint: p("SELECT * FROM endpoints WHERE id = ?"),
    disableEndpoint: p(
      "UPDATE endpoints SET disabled = 1, disabled_reason = ?, updated_at = ? WHERE id = ?",
    ),
    insertEventType: p(`INSERT INTO event_types (name, description, archived, deprecated,
      feature_flags, group_name, schemas, created_at, updated_at)
      VALUES (@name, @description, @archived, @deprecated, @feature_flags, @group_name, @schemas,
      @created_at, @updated_at)`),
    updateEventType: p(`UPDATE event_types SET description = @description, archived = @archived,
      deprecated = @deprecated, feature_flags = @feature_flags, group_name = @group_name,
      schemas = @schemas, updated_at = @updated_at WHERE name = @name`),
    findEventType: p("SELECT * FROM event_types WHERE name = ?"),
    getIdem: p("SELECT * FROM idempotency_keys WHERE scope = ? AND key = ?"),
    putIdem: p(`INSERT OR REPLACE INTO idempotency_keys
      (scope, key, fingerprint, state, locked_until, expires_at) VALUES (?, ?, ?, 'started', ?, ?)`),
    finishIdem: p(`UPDATE idempotency_keys SET state = 'done', status = ?, body = ?
      WHERE scope = ? AND key = ?`),
    dropIdem: p("DELETE FROM idempotency_keys WHERE scope = ? AND key = ?"),
    findMessageByEventId: p("SELECT * FROM messages WHERE app_id = ? AND event_id = ?"),
    findMessage: p(
      "SELECT * FROM messages WHERE app_id = ? AND (id = ? OR event_id = ?) ORDER BY id LIMIT 1",
    ),
    insertMessage: p(`INSERT INTO messages
      (id, app_id, event_type, event_id, channels, tags, payload, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
    fanOutTargets: p(`SELECT e.id, e.filter_types, e.channels, c.state AS circuit_state,
      c.next_probe_at FROM endpoints e LEFT JOIN circuits c ON c.endpoint_id = e.id
      WHERE e.app_id = ? AND e.disabled = 0`),
    insertDelivery: p(`INSERT INTO deliveries
      (id, app_id, message_id, endpoint_id, state, origin, next_attempt_at, created_at)
      VALUES (?, ?, ?, ?, 'pending', ?, ?, ?)`),
    recoverInflight: p(`UPDATE deliveries SET state = 'pending', lease_until = NULL,
      next_attempt_at = min(coalesce(next_attempt_at, @now), @now) WHERE state = 'inflight'`),
    // The subquery walks the partial index of pending rows in due order; the outer UPDATE claims
    // them in the same statement, so no other claimer can take the same rows.
    claim: p(`UPDATE deliveries SET state = 'inflight', lease_until = @lease
      WHERE id IN (SELECT id FROM deliveries
        WHERE state = 'pending' AND next_attempt_at <= @now
          AND endpoint_id NOT IN (SELECT value FROM json_each(@exclude))
        ORDER BY next_attempt_at LIMIT @limit)
      RETURNING id, app_id, message_id, endpoint_id, origin, attempt_count, first_attempt_at,
        last_delay_ms, next_attempt_at`),
    messageForDelivery: p("SELECT event_type, payload FROM messages WHERE id = ?"),
    nextDue: p(`SELECT next_attempt_at AS at FROM deliveries
      WHERE state = 'pending' AND endpoint_id NOT IN (SELECT value FROM json_each(?))
      ORDER BY next_attempt_at LIMIT 1`),
    advanceDelivery: p(`UPDATE deliveries SET state = @state, attempt_count = attempt_count + 1,
      first_attempt_at = coalesce(first_attempt_at, @at), last_attempt_at = @at,
      next_attempt_at = @next, last_delay_ms = coalesce(@delay, last_delay_ms), lease_until = NULL
      WHERE id = @id AND state = 'inflight'`),
    insertAttempt: p(`INSERT INTO attempts (id, delivery_id, app_id, message_id, endpoint_id, at,
      trigger, url, status, error, error_detail, duration_ms, response_snippet, outcome)
      SELECT @id, d.id, d.app_id, d.message_id, d.endpoint_id, @at, @trigger, @url, @status,
        @error, @detail, @duration, @snippet, @outcome FROM deliveries d WHERE d.id = @delivery`),
    insertDeadLetter: p(`INSERT INTO dead_letters (id, delivery_id, app_id, endpoint_id,
      message_id, event_id, event_type, failure_class, reason, final_status, final_error,
      signature_headers, first_attempt_at, last_attempt_at, state, replay_count, created_at)
      SELECT @id, d.id, d.app_id, d.endpoint_id, d.message_id, m.event_id, m.event_type, @cls,
        @reason, @status, @error, @headers, d.first_attempt_at, @at, 'open', 0, @at
      FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE d.id = @delivery`),
    bumpStats: p(`INSERT INTO endpoint_stats (endpoint_id, retry_after_honoured,
      retry_after_capped, retry_after_ignored, last_success_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (endpoint_id) DO UPDATE SET
        retry_after_honoured = retry_after_honoured + excluded.retry_after_honoured,
        retry_after_capped = retry_after_capped + excluded.retry_after_capped,
        retry_after_ignored = retry_after_ignored + excluded.retry_after_ignored,
        last_success_at = max(coalesce(last_success_at, 0), coalesce(excluded.last_success_at, 0))`),
    endWithoutAttempt: p(`UPDATE deliveries SET state = @state, next_attempt_at = @next,
      last_delay_ms = coalesce(@delay, last_delay_ms), lease_until = NULL
      WHERE id = @id AND state = 'inflight'`),
    release: p(`UPDATE deliveries SET state = 'pending', lease_until = NULL, next_attempt_at = ?
      WHERE id = ? AND state = 'inflight'`),
    pauseEndpoint: p(`UPDATE deliveries SET next_attempt_at = ?
      WHERE endpoint_id = ? AND state = 'pending' AND next_attempt_at < ?`),
    getDelivery: p("SELECT * FROM deliveries WHERE id = ?"),
    deliveriesOfMessage: p("SELECT * FROM deliveries WHERE message_id = ? ORDER BY id"),
    saveCircuit: p(`INSERT INTO circuits (endpoint_id, state, since, reason, next_probe_at,
      reopen_count) VALUES (@id, @state, @since, @reason, @probe, @reopen)
      ON CONFLICT (endpoint_id) DO UPDATE SET state = @state, since = @since, reason = @reason,
        next_probe_at = @probe, reopen_count = @reopen`),
    insertTransition: p(`INSERT INTO circuit_transitions (endpoint_id, from_state, to_state, at,
      reason) VALUES (?, ?, ?, ?, ?)`),
    getCircuit: p("SELECT * FROM circuits WHERE endpoint_id = ?"),
    transitions: p(`SELECT * FROM circuit_transitions WHERE endpoint_id = ?
      ORDER BY seq DESC LIMIT ?`),
    getStats: p("SELECT * FROM endpoint_stats WHERE endpoint_id = ?"),
    findAttempt: p("SELECT * FROM attempts WHERE id = ? AND app_id = ?"),
    deadLetterOfDelivery: p("SELECT * FROM dead_letters WHERE delivery_id = ?"),
  };
}
