/**
 * Read-only queries behind the dashboard's pages: replay job lists, attempt charts and where
 * messages stand.
 */
import type { Database as Db, Statement } from "better-sqlite3";
import type { AttemptBucket, DeliveryState, ReplayJob } from "../../domain/types.js";
import { firstIdAt } from "../../ids.js";
import {
  BY_MESSAGE,
  bucketFromRow,
  messageStatesSql,
  messagesStatesSql,
  PENDING_BY_ENDPOINT,
  statesByMessage,
  statesFromRows,
  waitingSql,
  WINDOW_FIRST,
} from "../endpoint-reads.js";
import type { MessageStateQuery, Page, PageQuery } from "../port.js";
import { paginate } from "./pagination.js";
import { replayJobFromRow, type Row } from "./rows.js";

/** Synchronous dashboard queries; `SqliteStore` wraps each call in its error mapping. */
export class DashboardQueries {
  /**
   * Prepared once: the endpoints page reads every listed endpoint's buckets at each refresh, and
   * preparing the statement cost more than running it. It walks the endpoint's attempts from the
   * first id of `since` on (see `firstIdAt`): by `at` alone it read every attempt the endpoint
   * ever had, at each refresh.
   */
  private readonly buckets: Statement;
  /** Prepared once too: an open endpoint page reads it again and again. */
  private readonly states: Statement;
  private readonly waiting: Statement;

  constructor(private readonly db: Db) {
    this.buckets = db.prepare(
      `SELECT (at / CAST(@bucket AS INTEGER)) * CAST(@bucket AS INTEGER) AS start, count(*) AS attempts,
         sum(CASE WHEN outcome = 'success' THEN 1 ELSE 0 END) AS successes,
         avg(duration_ms) AS mean_ms, max(duration_ms) AS max_ms
       FROM attempts WHERE endpoint_id = @endpoint AND id >= @from AND at >= @since
       GROUP BY start ORDER BY start`,
    );
    const p = {
      app: "@app",
      endpoint: "@endpoint",
      fromId: "@from",
      since: "@since",
      until: "@until",
    };
    this.states = db.prepare(messageStatesSql(p, WINDOW_FIRST));
    this.waiting = db
      .prepare(
        waitingSql({ endpoint: "endpoint_id = @endpoint", atMost: "@atMost" }, PENDING_BY_ENDPOINT),
      )
      .pluck();
  }

  listReplayJobs(q: PageQuery): Page<ReplayJob> {
    return paginate(
      this.db,
      { select: "SELECT * FROM replay_jobs", where: [], params: [] },
      "id",
      q,
      replayJobFromRow,
      (j) => j.id,
    );
  }

  attemptBuckets(q: { endpointId: string; since: number; bucketMs: number }): AttemptBucket[] {
    const rows = this.buckets.all({
      bucket: Math.trunc(q.bucketMs),
      endpoint: q.endpointId,
      from: firstIdAt("atmpt", q.since),
      since: q.since,
    }) as Row[];
    return rows.map(bucketFromRow);
  }

  endpointMessageStates(q: MessageStateQuery): Record<DeliveryState, number> {
    const rows = this.states.all({
      app: q.appId,
      endpoint: q.endpointId,
      from: firstIdAt("msg", q.since),
      since: q.since,
      until: q.until ?? Number.MAX_SAFE_INTEGER,
    }) as Row[];
    return statesFromRows(rows);
  }

  countWaitingDeliveries(endpointId: string, atMost: number): number {
    return Number(this.waiting.get({ endpoint: endpointId, atMost: Math.trunc(atMost) }));
  }

  messageDeliveryStates(
    appId: string,
    messageIds: readonly string[],
  ): Map<string, Record<DeliveryState, number>> {
    if (messageIds.length === 0) return new Map();
    const ids = `IN (${messageIds.map(() => "?").join(", ")})`;
    const rows = this.db
      .prepare(messagesStatesSql({ app: "?", ids }, BY_MESSAGE))
      .all(appId, ...messageIds) as Row[];
    return statesByMessage(messageIds, rows);
  }
}
