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
} from "../endpoint-reads.js";
import { all, Params } from "./database.js";
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

  async messageDeliveryStates(
    appId: string,
    messageIds: readonly string[],
  ): Promise<Map<string, Record<DeliveryState, number>>> {
    if (messageIds.length === 0) return new Map();
    const sql = messagesStatesSql({ app: "$1", ids: "= ANY($2::text[])" }, "");
    return statesByMessage(messageIds, await all(this.pool, sql, [appId, messageIds]));
  }
}
