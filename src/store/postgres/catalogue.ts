/** What senders configure: applications, endpoints, event types, and idempotency keys. */
import type pg from "pg";
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
import { all, exec, one, Params, tx, withoutTimeout, type Conn } from "./database.js";
import { paginate } from "./pagination.js";
import {
  applicationFromRow,
  appUpdateValues,
  appValues,
  endpointFromRow,
  endpointUpdateValues,
  endpointValues,
  eventTypeFromRow,
  eventTypeUpdateValues,
  eventTypeValues,
} from "./rows.js";
import { CATALOGUE as S } from "./statements.js";
import { withKeptAnswer } from "./kept-answer.js";

/** Why a bulk replay still out counts as withdrawn when its endpoint (or application) goes. */
const WITHDRAWN_WITH_ENDPOINT = "withdrawn: its endpoint was deleted before the result came in";

/** Catalogue operations; `PostgresStore` wraps each call in its error mapping. */
export class Catalogue {
  constructor(private readonly pool: pg.Pool) {}

  // ---- applications -------------------------------------------------------------------------

  createApplication(app: Application, kept?: KeptAnswer<Application>): Promise<Application> {
    const write = async (c: Conn) => {
      await exec(c, S.insertApp, appValues(app));
      return app;
    };
    return withKeptAnswer(this.pool, write, kept);
  }

  async findApplication(idOrUid: string): Promise<Application | null> {
    const row = await one(this.pool, S.findApp, [idOrUid]);
    return row ? applicationFromRow(row) : null;
  }

  listApplications(q: PageQuery & ApplicationFilter): Promise<Page<Application>> {
    return paginate(
      this.pool,
      {
        select: "SELECT * FROM applications",
        where: applicationConditions(q, "false"),
        params: new Params(),
      },
      "id",
      q,
      applicationFromRow,
      (a) => a.id,
    );
  }

  async updateApplication(
    app: Application,
    seenAt: number | null,
    forget: IdempotencyScopes | null,
  ): Promise<boolean> {
    return writeForgetting(this.pool, S.updateApp, [...appUpdateValues(app), seenAt], forget);
  }

  deleteApplication(id: string, forget?: IdempotencyScopes): Promise<void> {
    return tx(this.pool, async (bounded) => {
      const c = withoutTimeout(bounded);
      const eps = (await all(c, S.endpointsOfApp, [id])).map((ep) => String(ep.id));
      await withdrawJobReplays(c, eps);
      await exec(
        c,
        `DELETE FROM dead_letter_events
        WHERE dead_letter_id IN (SELECT id FROM dead_letters WHERE app_id = $1)`,
        [id],
      );
      // In deleteEndpointRows' order.
      for (const { table, where } of APPLICATION_HISTORY) {
        await exec(c, `DELETE FROM ${table} WHERE ${where("$1")}`, [id]);
      }
      if (eps.length) await deleteEndpointRows(c, eps);
      // Its tokens (portal links too) could reach nothing of it, but would still read the event
      // types, and be kept and listed for ever.
      await exec(c, "DELETE FROM api_tokens WHERE app_id = $1", [id]);
      await exec(c, "DELETE FROM applications WHERE id = $1", [id]);
      // Last, as an endpoint's deletion does: keys that cannot be forgotten undo it all.
      if (forget) await forgetKeys(c, forget);
    });
  }

  // ---- endpoints ----------------------------------------------------------------------------

  createEndpoint(ep: Endpoint, kept?: KeptAnswer<Endpoint>): Promise<Endpoint> {
    const write = async (c: Conn) => {
      await exec(c, S.insertEndpoint, endpointValues(ep));
      return ep;
    };
    return withKeptAnswer(this.pool, write, kept);
  }

  async findEndpoint(appId: string, idOrUid: string): Promise<Endpoint | null> {
    const row = await one(this.pool, S.findEndpoint, [appId, idOrUid]);
    return row ? endpointFromRow(row) : null;
  }

  async getEndpoint(id: string): Promise<Endpoint | null> {
    const row = await one(this.pool, S.getEndpoint, [id]);
    return row ? endpointFromRow(row) : null;
  }

  async getEndpoints(ids: string[]): Promise<Endpoint[]> {
    return (await all(this.pool, S.getEndpoints, [ids])).map(endpointFromRow);
  }

  async listStoppedEndpoints(ids: string[]): Promise<Map<string, EndpointStopped>> {
    const rows = await all(this.pool, S.stoppedEndpoints, [ids]);
    return new Map(rows.map((r) => [String(r.id), r.deleted ? "deleted" : "disabled"]));
  }

  listEndpoints(appId: string, q: PageQuery): Promise<Page<Endpoint>> {
    const params = new Params();
    return paginate(
      this.pool,
      { select: "SELECT * FROM endpoints", where: [`app_id = ${params.add(appId)}`], params },
      "id",
      q,
      endpointFromRow,
      (e) => e.id,
    );
  }

  updateEndpoint(
    ep: Endpoint,
    seenAt: number | null,
    forget: EndpointKeys | null,
  ): Promise<boolean> {
    return tx(this.pool, async (c) => {
      const done = (await exec(c, S.updateEndpoint, [...endpointUpdateValues(ep), seenAt])) > 0;
      if (done && ep.disabled) await exec(c, S.replaysDueNow, [ep.updatedAt, ep.id]);
      if (done && forget) await forgetEndpointKeys(c, ep.appId, forget);
      return done;
    });
  }

  deleteEndpoint(appId: string, id: string, forget: EndpointKeys | null): Promise<void> {
    return tx(this.pool, async (bounded) => {
      if (await one(bounded, S.endpointExists, [id, appId])) {
        // The keys are forgotten without the query timeout too, as deleteApplication forgets
        // them: they are four ranges for each of the application's live tokens (each portal link
        // is one), and cut off there they would roll back the deletion already made, again at
        // every retry, so that an application with many tokens could never delete an endpoint.
        const c = withoutTimeout(bounded);
        // The rows go first, as a change's write does: keys that cannot be forgotten then undo a
        // deletion already made, which only the transaction can.
        await deleteEndpointRows(c, [id]);
        if (forget) await forgetEndpointKeys(c, appId, forget);
      }
    });
  }

  clearDeletedEndpoint(id: string): Promise<void> {
    return tx(this.pool, async (c) => {
      if (!(await one(c, "SELECT 1 FROM endpoints WHERE id = $1", [id]))) {
        await deleteEndpointRows(withoutTimeout(c), [id]);
      }
    });
  }

  // ---- event types --------------------------------------------------------------------------

  async createEventType(et: EventType): Promise<EventType> {
    await exec(this.pool, S.insertEventType, eventTypeValues(et));
    return et;
  }

  async findEventType(name: string): Promise<EventType | null> {
    const row = await one(this.pool, S.findEventType, [name]);
    return row ? eventTypeFromRow(row) : null;
  }

  listEventTypes(q: EventTypeQuery): Promise<Page<EventType>> {
    const where = q.includeArchived ? [] : ["NOT archived"];
    const params = new Params();
    // The rule of domain/feature-flags.ts, in SQL so that pages stay full.
    if (q.featureFlags) {
      where.push(`(feature_flags IS NULL OR json_array_length(feature_flags) = 0
        OR EXISTS (SELECT 1 FROM json_array_elements_text(feature_flags) f
          WHERE f = ANY(${params.add([...q.featureFlags])}::text[])))`);
    }
    return paginate(
      this.pool,
      { select: "SELECT * FROM event_types", where, params },
      "name",
      q,
      eventTypeFromRow,
      (e) => e.name,
    );
  }

  async updateEventType(
    et: EventType,
    seenAt: number | null,
    forget: IdempotencyScopes | null,
  ): Promise<boolean> {
    const values = [...eventTypeUpdateValues(et), seenAt];
    return writeForgetting(this.pool, S.updateEventType, values, forget);
  }

  async deleteEventType(name: string, forget: IdempotencyScopes | null): Promise<void> {
    if (!forget) return void (await exec(this.pool, S.deleteEventType, [name]));
    await tx(this.pool, async (c) => {
      if ((await exec(c, S.deleteEventType, [name])) > 0) await forgetKeys(c, forget);
    });
  }

  // ---- idempotency --------------------------------------------------------------------------

  /**
   * Atomic under concurrency: the key's row is locked (FOR UPDATE) while it is judged, and a first
   * request inserts it with ON CONFLICT DO NOTHING, so of two requests at once one is `new` and the
   * other sees it started.
   */
  beginIdempotent(req: IdempotencyBegin): Promise<IdempotencyState> {
    const key = [req.scope, req.key];
    const start = [...key, req.owner, req.fingerprint, req.now + req.lockMs, req.now + req.ttlMs];
    return tx(this.pool, async (c): Promise<IdempotencyState> => {
      // The row may vanish (abandoned) between a failed insert and the lock: then insert again.
      for (;;) {
        const row = await one(c, S.lockIdem, key);
        if (!row) {
          if ((await exec(c, S.insertIdem, start)) === 1) return { kind: "new" };
          continue;
        }
        if (Number(row.expires_at) > req.now) {
          if (row.fingerprint !== req.fingerprint) return { kind: "mismatch" };
          if (row.state === "done") {
            return { kind: "replay", status: Number(row.status), body: String(row.body) };
          }
          if (Number(row.locked_until) > req.now) return { kind: "in-progress" };
        }
        await exec(c, S.restartIdem, start);
        return { kind: "new" };
      }
    });
  }

  async finishIdempotent(held: HeldIdempotencyKey, status: number, body: string): Promise<boolean> {
    const { scope, key, owner } = held;
    return (await exec(this.pool, S.finishIdem, [scope, key, owner, status, body])) > 0;
  }

  async abandonIdempotent(held: HeldIdempotencyKey): Promise<boolean> {
    return (await exec(this.pool, S.dropIdem, [held.scope, held.key, held.owner])) > 0;
  }
}

/** Within a transaction: the keys `forget` picks, told the application's tokens. */
async function forgetEndpointKeys(c: Conn, appId: string, forget: EndpointKeys): Promise<void> {
  // A revoked or expired token sends nothing again: its keys answer no one.
  const tokens = await all(
    c,
    `SELECT id FROM api_tokens WHERE app_id = $1 AND revoked_at IS NULL
      AND (expires_at IS NULL OR expires_at > $2)`,
    [appId, forget.now],
  );
  await forgetKeys(c, forget.scopes(tokens.map((t) => String(t.id))));
}

/**
 * Runs the statement `sql`; when it wrote a row and there are keys to `forget`, forgets them in
 * its transaction (one only then: a change that forgets nothing stays a single round trip).
 */
async function writeForgetting(
  pool: pg.Pool,
  sql: string,
  values: unknown[],
  forget: IdempotencyScopes | null,
): Promise<boolean> {
  if (!forget) return (await exec(pool, sql, values)) > 0;
  return tx(pool, async (c) => {
    const written = (await exec(c, sql, values)) > 0;
    if (written) await forgetKeys(c, forget);
    return written;
  });
}

/** Within a transaction: deletes the idempotency keys `scopes` picks, answered or not. */
async function forgetKeys(c: Conn, scopes: IdempotencyScopes): Promise<void> {
  const { exact, ranges } = scopeRanges(scopes);
  if (exact.length) await exec(c, S.forgetIdemScopes, [exact]);
  if (ranges.length) {
    await exec(c, S.forgetIdemRanges, [ranges.map((r) => r.from), ranges.map((r) => r.to)]);
  }
}

/**
 * Within a transaction: bulk replays to the given endpoints that are still out will never bring a
 * result once their deliveries are gone. They count as withdrawn, or their job would wait for them
 * for ever.
 */
async function withdrawJobReplays(c: Conn, endpointIds: string[]): Promise<void> {
  // Queueing a job's replays holds the job's row (see the replay jobs); holding it here first
  // waits for a queueing under way, whose replays then count below, rather than miss them. Every
  // such job, running or not (a cancelled job's replays already sent still come back), before
  // its items: recording a replay's outcome takes them in that order too.
  await exec(
    c,
    `SELECT j.id FROM replay_jobs j
    WHERE j.id IN (SELECT i.job_id FROM replay_job_items i
      JOIN dead_letters d ON d.id = i.dead_letter_id
      WHERE d.endpoint_id = ANY($1::text[]) AND i.state IN ('pending', 'queued'))
    ORDER BY j.id FOR UPDATE OF j`,
    [endpointIds],
  );
  // Then the records, before their history goes: a job with none of them listed yet (made, but
  // not yet prepared) is not held above, and its queueing could otherwise move a record between
  // the deletion of its history and its own, leaving the replay's history line for good and its
  // job waiting for a result that never comes. It now waits, and finds the record gone.
  await exec(
    c,
    "SELECT id FROM dead_letters WHERE endpoint_id = ANY($1::text[]) ORDER BY id FOR UPDATE",
    [endpointIds],
  );
  await exec(
    c,
    `WITH gone AS (
      UPDATE replay_job_items i SET state = 'withdrawn', detail = $2
      FROM dead_letters d
      WHERE d.id = i.dead_letter_id AND d.endpoint_id = ANY($1::text[]) AND i.state = 'queued'
      RETURNING i.job_id
    )
    UPDATE replay_jobs j SET withdrawn = j.withdrawn + g.n
    FROM (SELECT job_id, count(*) AS n FROM gone GROUP BY job_id) g WHERE j.id = g.job_id`,
    [endpointIds, WITHDRAWN_WITH_ENDPOINT],
  );
}

/** Within a transaction: everything of the given endpoints, and the endpoints themselves. */
async function deleteEndpointRows(c: Conn, ids: string[]): Promise<void> {
  await withdrawJobReplays(c, ids);
  await exec(
    c,
    `DELETE FROM dead_letter_events
    WHERE dead_letter_id IN (SELECT id FROM dead_letters WHERE endpoint_id = ANY($1::text[]))`,
    [ids],
  );
  // Records before deliveries, as recording a replay's outcome takes them; attempts before
  // deliveries, as retention takes a message's.
  for (const table of [
    "attempts",
    "dead_letters",
    "dead_letter_overflow",
    "deliveries",
    "circuit_transitions",
    "circuits",
    "dead_letter_depth",
    "endpoint_stats",
    // Its owner forgets a deleted endpoint without handing it back: a row left here would count
    // in every worker's share for as long as that owner lives.
    "endpoint_owners",
  ]) {
    await exec(c, `DELETE FROM ${table} WHERE endpoint_id = ANY($1::text[])`, [ids]);
  }
  await exec(c, "DELETE FROM endpoints WHERE id = ANY($1::text[])", [ids]);
}
