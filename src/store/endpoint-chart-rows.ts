/**
 * Rows of the endpoint charts' queries, the same shape in both dialects (see
 * `Store.attemptBuckets` and `Store.endpointMessageStates`).
 */
import type { AttemptBucket, DeliveryState } from "../domain/types.js";

/**
 * Counts each message once, by its latest delivery to the endpoint (no later one of the same
 * message to the same endpoint); `:since` and `:until` are the dialect's placeholders.
 */
export const messageStatesSql = (endpoint: string, since: string, until: string) =>
  `SELECT d.state, count(*) AS n FROM deliveries d JOIN messages m ON m.id = d.message_id
   WHERE d.endpoint_id = ${endpoint} AND m.created_at >= ${since} AND m.created_at < ${until}
     AND NOT EXISTS (SELECT 1 FROM deliveries later WHERE later.message_id = d.message_id
       AND later.endpoint_id = d.endpoint_id AND later.id > d.id)
   GROUP BY d.state`;

/** `(state, n)` rows as a count for every state. */
export function statesFromRows(rows: Record<string, unknown>[]): Record<DeliveryState, number> {
  const counts: Record<DeliveryState, number> = { pending: 0, inflight: 0, succeeded: 0, dead: 0 };
  for (const r of rows) counts[r.state as DeliveryState] = Number(r.n);
  return counts;
}

/** A bucket row, the same shape in both dialects. */
export function bucketFromRow(row: Record<string, unknown>): AttemptBucket {
  return {
    start: Number(row.start),
    attempts: Number(row.attempts),
    successes: Number(row.successes),
    meanDurationMs: Math.round(Number(row.mean_ms)),
    maxDurationMs: Number(row.max_ms),
  };
}
