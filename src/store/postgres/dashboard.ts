/**
 * Read-only queries behind the dashboard's pages: replay job lists, attempt charts and where
 * messages stand.
 */
import type pg from "pg";
import type { AttemptBucket, DeliveryState, ReplayJob } from "../../domain/types.js";
import { firstIdAt } from "../../ids.js";
import type { MessageStateQuery, Page, PageQuery } from "../port.js";
import {
  bucketFromRow,
  messageStatesSql,
  messagesStatesSql,
  statesByMessage,
  statesFromRows,
  waitingSql,
} from "../endpoint-reads.js";
import { all, exec, one, Params, tx } from "./database.js";
import { paginate } from "./pagination.js";
import { replayJobFromRow } from "./rows.js";

/** Dashboard queries; `PostgresStore` wraps each call in its error mapping. */
export class DashboardQueries {
  constructor(private readonly pool: pg.Pool) {}

  listReplayJobs(q: PageQuery): Promise<Page<ReplayJob>> {
    return paginate(
      this.pool,
      { select: "SELECT * FROM replay_jobs", where: [], params: new Params() },
      "id",
      q,
      replayJobFromRow,
      (j) => j.id,
    );
  }

  async attemptBuckets(q: {
    endpointId: string;
    since: number;
    bucketMs: number;
  }): Promise<AttemptBucket[]> {
    // From the first id of `since` on (see `firstIdAt`): by `at` alone it read every attempt the
    // endpoint ever had, at each refresh of the endpoints page.
    const rows = await all(
      this.pool,
      `SELECT (at / $1::bigint) * $1::bigint AS start, count(*) AS attempts,
         sum(CASE WHEN outcome = 'success' THEN 1 ELSE 0 END) AS successes,
         avg(duration_ms) AS mean_ms, max(duration_ms) AS max_ms
       FROM attempts WHERE endpoint_id = $2 AND id >= $4 AND at >= $3
       GROUP BY 1 ORDER BY 1`,
      [Math.trunc(q.bucketMs), q.endpointId, q.since, firstIdAt("atmpt", q.since)],
    );
    return rows.map(bucketFromRow);
  }

  async endpointMessageStates(q: MessageStateQuery): Promise<Record<DeliveryState, number>> {
    const p = { app: "$1", endpoint: "$2", fromId: "$3", since: "$4", until: "$5" };
    const rows = await all(this.pool, messageStatesSql(p, { messages: "", deliveries: "" }), [
      q.appId,
      q.endpointId,
      firstIdAt("msg", q.since),
      q.since,
      q.until ?? Number.MAX_SAFE_INTEGER,
    ]);
    return statesFromRows(rows);
  }

  /**
   * PostgreSQL has no index hints, and its estimates took other ways: the shared index of pending
   * rows filtered by endpoint (every endpoint's backlog), or the endpoint's index of every
   * delivery (its whole history), then a sort. Sorts are turned off for this one read, so only
   * the index that gives the order, that of pending deliveries by endpoint, is left. The endpoint
   * is matched against an array, as the claims match it, so that it stays part of that order.
   */
  async countWaitingDeliveries(endpointId: string, atMost: number): Promise<number> {
    const sql = waitingSql({ endpoint: "endpoint_id = ANY($1::text[])", atMost: "$2" }, "");
    const row = await tx(
      this.pool,
      async (c) => {
        await exec(c, "SET LOCAL enable_sort = off; SET LOCAL enable_incremental_sort = off");
        return one(c, sql, [[endpointId], Math.trunc(atMost)]);
      },
      "snapshot",
    );
    return Number(row?.n ?? 0);
  }

  async messageDeliveryStates(
    appId: string,
    messageIds: readonly string[],
  ): Promise<Map<string, Record<DeliveryState, number>>> {
    if (messageIds.length === 0) return new Map();
    const sql = messagesStatesSql({ app: "$1", ids: "= ANY($2::text[])" }, "");
    return statesByMessage(messageIds, await all(this.pool, sql, [appId, messageIds]));
  }
}
