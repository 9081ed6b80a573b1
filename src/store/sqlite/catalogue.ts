/** What senders configure: applications, endpoints, event types, and idempotency keys. */
import { performance } from "node:perf_hooks";
import type { Database as Db } from "better-sqlite3";
import type { Application, Endpoint, EventType } from "../../domain/types.js";
import { applicationConditions } from "../application-filter.js";
import { APPLICATION_HISTORY } from "../application-history.js";
import { scopeRanges } from "../idempotency-scopes.js";
import type {
  ApplicationFilter,
  EndpointKeys,
  EndpointStopped,
  EventTypeQuery,
  HeldIdempotencyKey,
  IdempotencyBegin,
  IdempotencyScopes,
  IdempotencyState,
  KeptAnswer,
  Page,
  PageQuery,
} from "../port.js";
import { withKeptAnswer } from "./kept-answer.js";
import { paginate } from "./pagination.js";
import { ExpiringMap } from "../../expiring-map.js";
import {
  appParams,
  applicationFromRow,
  endpointFromRow,
  endpointParams,
  eventTypeFromRow,
  eventTypeParams,
  type Row,
} from "./rows.js";
import type { CatalogueStatements } from "./statements.js";

/** Why a bulk replay still out counts as withdrawn when its endpoint (or application) goes. */
const WITHDRAWN_WITH_ENDPOINT = "withdrawn: its endpoint was deleted before the result came in";

/** Synchronous catalogue operations; `SqliteStore` wraps each call in its error mapping. */
export class Catalogue {
  /**
   * Every post looks its application up; they change rarely, and only through this class. SQLite
   * serves one process, and every write to applications here clears this, so a hit is what the
   * table holds; the second only bounds how long an edit made outside hookline (the sqlite3
   * shell) can go unseen. Rows are kept, not domain objects: each caller gets objects of its own.
   */
  private readonly apps = new ExpiringMap<Row>(1_000);

  constructor(
    private readonly db: Db,
    private readonly s: CatalogueStatements,
  ) {}

  // ---- applications -------------------------------------------------------------------------

  createApplication(app: Application, kept?: KeptAnswer<Application>): Application {
    this.apps.clear();
    const write = () => {
      this.s.insertApp.run(appParams(app));
      return app;
    };
    return withKeptAnswer(this.db, this.s.finishIdem, write, kept);
  }

  findApplication(idOrUid: string): Application | null {
    const now = performance.now();
    let row = this.apps.get(idOrUid, now);
    if (!row) {
      row = this.s.findApp.get({ v: idOrUid }) as Row | undefined;
      if (row) this.apps.put(idOrUid, row, now);
    }
    return row ? applicationFromRow(row) : null;
  }

  listApplications(q: PageQuery & ApplicationFilter): Page<Application> {
    return paginate(
      this.db,
      { select: "SELECT * FROM applications", where: applicationConditions(q, "0"), params: [] },
      "id",
      q,
      applicationFromRow,
      (a) => a.id,
    );
  }

  updateApplication(
    app: Application,
    seenAt: number | null,
    forget: IdempotencyScopes | null,
  ): boolean {
    this.apps.clear();
    return this.writeForgetting(
      () => this.s.updateApp.run({ ...appParams(app), seen_at: seenAt }).changes > 0,
      forget,
    );
  }

  deleteApplication(id: string, forget?: IdempotencyScopes): void {
    this.apps.clear();
    this.db.transaction(() => {
      const eps = this.db.prepare("SELECT id FROM endpoints WHERE app_id = ?").all(id) as Row[];
      for (const ep of eps) this.withdrawJobReplays(String(ep.id));
      this.db
        .prepare(
          `DELETE FROM dead_letter_events
          WHERE dead_letter_id IN (SELECT id FROM dead_letters WHERE app_id = ?)`,
        )
        .run(id);
      for (const { table, where } of APPLICATION_HISTORY) {
        this.db.prepare(`DELETE FROM ${table} WHERE ${where("?")}`).run(id);
      }
      for (const ep of eps) this.deleteEndpointRows(String(ep.id));
      // Its tokens (portal links too) could reach nothing of it, but would still read the event
      // types, and be kept and listed for ever.
      this.db.prepare("DELETE FROM api_tokens WHERE app_id = ?").run(id);
      this.db.prepare("DELETE FROM applications WHERE id = ?").run(id);
      // Last, as an endpoint's deletion does: keys that cannot be forgotten undo it all.
      if (forget) this.forgetIdempotencyKeys(forget);
    })();
  }

  // ---- endpoints ----------------------------------------------------------------------------

  createEndpoint(ep: Endpoint, kept?: KeptAnswer<Endpoint>): Endpoint {
    const write = () => {
      this.s.insertEndpoint.run(endpointParams(ep));
      return ep;
    };
    return withKeptAnswer(this.db, this.s.finishIdem, write, kept);
  }

  findEndpoint(appId: string, idOrUid: string): Endpoint | null {
    const row = this.s.findEndpoint.get({ app: appId, v: idOrUid }) as Row | undefined;
    return row ? endpointFromRow(row) : null;
  }

  getEndpoint(id: string): Endpoint | null {
    const row = this.s.getEndpoint.get(id) as Row | undefined;
    return row ? endpointFromRow(row) : null;
  }

  getEndpoints(ids: string[]): Endpoint[] {
    return (this.s.getEndpoints.all(JSON.stringify(ids)) as Row[]).map(endpointFromRow);
  }

  listStoppedEndpoints(ids: string[]): Map<string, EndpointStopped> {
    const rows = this.s.stoppedEndpoints.all(JSON.stringify(ids)) as Row[];
    return new Map(rows.map((r) => [String(r.id), r.deleted ? "deleted" : "disabled"]));
  }

  listEndpoints(appId: string, q: PageQuery): Page<Endpoint> {
    return paginate(
      this.db,
      { select: "SELECT * FROM endpoints", where: ["app_id = ?"], params: [appId] },
      "id",
      q,
      endpointFromRow,
      (e) => e.id,
    );
  }

  updateEndpoint(ep: Endpoint, seenAt: number | null, forget: EndpointKeys | null): boolean {
    return this.db.transaction(() => {
      const done = this.s.updateEndpoint.run({ ...endpointParams(ep), seen_at: seenAt }).changes;
      if (done > 0 && ep.disabled) this.s.replaysDueNow.run({ now: ep.updatedAt, endpoint: ep.id });
      if (done > 0 && forget) this.forgetEndpointKeys(ep.appId, forget);
      return done > 0;
    })();
  }

  deleteEndpoint(appId: string, id: string, forget: EndpointKeys | null): void {
    this.db.transaction(() => {
      const ok = this.db
        .prepare("SELECT 1 FROM endpoints WHERE id = ? AND app_id = ?")
        .get(id, appId);
      if (!ok) return;
      // The rows go first, as a change's write does: keys that cannot be forgotten then undo a
      // deletion already made, which only the transaction can.
      this.deleteEndpointRows(id);
      if (forget) this.forgetEndpointKeys(appId, forget);
    })();
  }

  /** Within a transaction: the keys `forget` picks, told the application's tokens. */
  private forgetEndpointKeys(appId: string, forget: EndpointKeys): void {
    // A revoked or expired token sends nothing again: its keys answer no one.
    const tokens = this.db
      .prepare(
        `SELECT id FROM api_tokens WHERE app_id = ? AND revoked_at IS NULL
          AND (expires_at IS NULL OR expires_at > ?)`,
      )
      .all(appId, forget.now) as Row[];
    this.forgetIdempotencyKeys(forget.scopes(tokens.map((t) => String(t.id))));
  }

  clearDeletedEndpoint(id: string): void {
    this.db.transaction(() => {
      const exists = this.db.prepare("SELECT 1 FROM endpoints WHERE id = ?").get(id);
      if (!exists) this.deleteEndpointRows(id);
    })();
  }

  private deleteEndpointRows(id: string): void {
    this.withdrawJobReplays(id);
    this.db
      .prepare(
        `DELETE FROM dead_letter_events
        WHERE dead_letter_id IN (SELECT id FROM dead_letters WHERE endpoint_id = ?)`,
      )
      .run(id);
    for (const table of [
      "attempts",
      "dead_letters",
      "dead_letter_overflow",
      "deliveries",
      "circuit_transitions",
    ]) {
      this.db.prepare(`DELETE FROM ${table} WHERE endpoint_id = ?`).run(id);
    }
    this.db.prepare("DELETE FROM circuits WHERE endpoint_id = ?").run(id);
    this.db.prepare("DELETE FROM dead_letter_depth WHERE endpoint_id = ?").run(id);
    this.db.prepare("DELETE FROM endpoint_stats WHERE endpoint_id = ?").run(id);
    this.db.prepare("DELETE FROM endpoints WHERE id = ?").run(id);
  }

  /**
   * Bulk replays to the endpoint that are still out will never bring a result once its deliveries
   * are gone: they count as withdrawn, or their job would wait for them for ever.
   */
  private withdrawJobReplays(endpointId: string): void {
    const out = `SELECT i.job_id, i.dead_letter_id FROM replay_job_items i
      JOIN dead_letters d ON d.id = i.dead_letter_id
      WHERE d.endpoint_id = @endpointId AND i.state = 'queued'`;
    this.db
      .prepare(
        `UPDATE replay_jobs SET withdrawn = withdrawn +
          (SELECT count(*) FROM (${out}) o WHERE o.job_id = replay_jobs.id)
        WHERE id IN (SELECT job_id FROM (${out}))`,
      )
      .run({ endpointId });
    this.db
      .prepare(
        `UPDATE replay_job_items SET state = 'withdrawn', detail = @detail
        WHERE state = 'queued' AND dead_letter_id IN
          (SELECT id FROM dead_letters WHERE endpoint_id = @endpointId)`,
      )
      .run({ endpointId, detail: WITHDRAWN_WITH_ENDPOINT });
  }

  // ---- event types --------------------------------------------------------------------------

  createEventType(et: EventType): EventType {
    this.s.insertEventType.run(eventTypeParams(et));
    return et;
  }

  findEventType(name: string): EventType | null {
    const row = this.s.findEventType.get(name) as Row | undefined;
    return row ? eventTypeFromRow(row) : null;
  }

  listEventTypes(q: EventTypeQuery): Page<EventType> {
    const where = q.includeArchived ? [] : ["archived = 0"];
    const params: unknown[] = [];
    // The rule of domain/feature-flags.ts, in SQL so that pages stay full.
    if (q.featureFlags) {
      where.push(`(feature_flags IS NULL OR json_array_length(feature_flags) = 0
        OR EXISTS (SELECT 1 FROM json_each(feature_flags) f
          WHERE f.value IN (SELECT value FROM json_each(?))))`);
      params.push(JSON.stringify(q.featureFlags));
    }
    return paginate(
      this.db,
      { select: "SELECT * FROM event_types", where, params },
      "name",
      q,
      eventTypeFromRow,
      (e) => e.name,
    );
  }

  updateEventType(et: EventType, seenAt: number | null, forget: IdempotencyScopes | null): boolean {
    return this.writeForgetting(
      () => this.s.updateEventType.run({ ...eventTypeParams(et), seen_at: seenAt }).changes > 0,
      forget,
    );
  }

  deleteEventType(name: string, forget: IdempotencyScopes | null): void {
    this.db.transaction(() => {
      const deleted = this.db.prepare("DELETE FROM event_types WHERE name = ?").run(name).changes;
      if (deleted > 0 && forget) this.forgetIdempotencyKeys(forget);
    })();
  }

  // ---- idempotency --------------------------------------------------------------------------

  beginIdempotent(req: IdempotencyBegin): IdempotencyState {
    return this.db
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
          req.owner,
          req.fingerprint,
          req.now + req.lockMs,
          req.now + req.ttlMs,
        );
        return { kind: "new" };
      })
      .immediate();
  }

  finishIdempotent(held: HeldIdempotencyKey, status: number, body: string): boolean {
    return this.s.finishIdem.run(status, body, held.scope, held.key, held.owner).changes > 0;
  }

  abandonIdempotent(held: HeldIdempotencyKey): boolean {
    return this.s.dropIdem.run(held.scope, held.key, held.owner).changes > 0;
  }

  /**
   * Runs `write`; when it wrote and there are keys to `forget`, forgets them in its transaction
   * (one only then: a change that forgets nothing stays a single statement).
   */
  private writeForgetting(write: () => boolean, forget: IdempotencyScopes | null): boolean {
    if (!forget) return write();
    return this.db.transaction(() => {
      const written = write();
      if (written) this.forgetIdempotencyKeys(forget);
      return written;
    })();
  }

  /** Within a transaction: deletes the idempotency keys `scopes` picks, answered or not. */
  private forgetIdempotencyKeys(scopes: IdempotencyScopes): void {
    const { exact, ranges } = scopeRanges(scopes);
    for (const scope of exact) this.s.forgetIdemScope.run(scope);
    for (const { from, to } of ranges) this.s.forgetIdemRange.run(from, to);
  }
}
