/**
 * What both dialects read the same way about one endpoint: its attempts in time buckets, and its
 * messages with where each stands there (`Store.attemptBuckets`, `Store.endpointMessageStates`,
 * `Store.listEndpointMessages`), and how many of its deliveries wait (`Store.countWaitingDeliveries`); and, the other way round, where a page of messages stands at
 * their endpoints (`Store.messageDeliveryStates`).
 */
import type { AttemptBucket, DeliveryState, Message } from "../domain/types.js";
import { headFromRow, messageHeadColumns, type Sized } from "./message-heads.js";
import type { EndpointMessage } from "./port.js";

/**
 * The delivery `d` is its message's latest to its endpoint (none of a resend or replay after it):
 * where the message stands there, each message counted once. The look for a later one must go
 * through the message's few deliveries, never the endpoint's many: SQLite, without statistics,
 * picks the endpoint's index unless told (`hint`, its `INDEXED BY`; PostgreSQL's planner has
 * statistics and takes none).
 */
export const latestDelivery = (hint: string) => `NOT EXISTS (SELECT 1 FROM deliveries later ${hint}
  WHERE later.message_id = d.message_id AND later.endpoint_id = d.endpoint_id AND later.id > d.id)`;

/** SQLite's hint for `latestDelivery`. */
export const BY_MESSAGE = "INDEXED BY deliveries_by_message";

/**
 * Messages `m`, without their payloads (see message-heads.ts; `sizeOf` is the dialect's), joined to
 * their latest delivery `d` to an endpoint.
 */
export const endpointMessages = (sizeOf: string) => `SELECT ${messageHeadColumns("m", sizeOf)},
  d.state AS delivery_state, d.next_attempt_at AS delivery_next_attempt_at,
  d.attempt_count AS delivery_attempt_count, d.first_attempt_at AS delivery_first_attempt_at
  FROM messages m JOIN deliveries d ON d.message_id = m.id`;

/** A row of `endpointMessages`, its message columns read by the dialect's `messageFromRow`. */
export function endpointMessageFromRow(
  row: Record<string, unknown>,
  messageFromRow: (row: Record<string, unknown>) => Message,
): Sized<EndpointMessage> {
  const next = row.delivery_next_attempt_at;
  const first = row.delivery_first_attempt_at;
  const head = headFromRow(row, messageFromRow);
  const item = {
    message: head.item,
    state: row.delivery_state as DeliveryState,
    nextAttemptAt: next == null ? null : Number(next),
    attemptCount: Number(row.delivery_attempt_count),
    firstAttemptAt: first == null ? null : Number(first),
  };
  return { item, bytes: head.bytes };
}

/** SQLite's hints for `messageStatesSql`: the window's messages, then each one's deliveries. */
export const WINDOW_FIRST = { messages: "INDEXED BY messages_by_app", deliveries: BY_MESSAGE };

/**
 * Counts each message once, by its latest delivery; `p` holds the dialect's placeholders. It walks
 * the application's messages from the first id of the window on (see `firstIdAt`) and looks up
 * each one's latest delivery to the endpoint among the message's few deliveries: a subquery per
 * message, which neither dialect turns into a join. As a join, the read went through the
 * endpoint's deliveries, every one it ever had whatever the window (0.3–0.9 s for the last day of
 * an endpoint with 200,000 on SQLite, 15–45 ms this way, at each refresh of its page), and
 * PostgreSQL's planner took that way too once the window held enough messages.
 */
export const messageStatesSql = (
  p: { app: string; endpoint: string; fromId: string; since: string; until: string },
  hints: { messages: string; deliveries: string },
) =>
  `SELECT state, count(*) AS n FROM (
     SELECT (SELECT d.state FROM deliveries d ${hints.deliveries}
        WHERE d.message_id = m.id AND d.endpoint_id = ${p.endpoint}
        ORDER BY d.id DESC LIMIT 1) AS state
     FROM messages m ${hints.messages}
     WHERE m.app_id = ${p.app} AND m.id >= ${p.fromId}
       AND m.created_at >= ${p.since} AND m.created_at < ${p.until}
   ) AS latest
   GROUP BY state`;

/** SQLite's hint for `waitingSql`: without statistics it may take the endpoint's every delivery. */
export const PENDING_BY_ENDPOINT = "INDEXED BY deliveries_pending_by_endpoint";

/**
 * Counts the endpoint's pending deliveries up to `p.atMost`, in the order of the index of pending
 * deliveries by endpoint, which alone gives it; the limit inside bounds the walk, so a count of a
 * huge backlog stops there. `p.endpoint` is the dialect's match of the endpoint (`endpoint_id …`).
 */
export const waitingSql = (p: { endpoint: string; atMost: string }, hint: string) =>
  `SELECT count(*) AS n FROM (
     SELECT 1 FROM deliveries ${hint}
     WHERE state = 'pending' AND ${p.endpoint}
     ORDER BY endpoint_id, next_attempt_at LIMIT ${p.atMost}
   ) AS waiting`;

/**
 * `(state, n)` rows as a count for every state; a row without a state counts the messages that
 * went to other endpoints only.
 */
export function statesFromRows(rows: Record<string, unknown>[]): Record<DeliveryState, number> {
  const counts = noStates();
  for (const r of rows) if (r.state != null) counts[r.state as DeliveryState] = Number(r.n);
  return counts;
}

const noStates = (): Record<DeliveryState, number> => ({
  pending: 0,
  inflight: 0,
  succeeded: 0,
  dead: 0,
});

/**
 * Counts each listed message's endpoints by the message's latest delivery to each, in one query
 * over the messages' own deliveries (`deliveries_by_message`); `p` holds the dialect's
 * placeholders for the application and for the list of message ids (`ids`, e.g. `IN (…)`).
 */
export const messagesStatesSql = (p: { app: string; ids: string }, hint: string) =>
  `SELECT d.message_id, d.state, count(*) AS n FROM deliveries d ${hint}
   WHERE d.app_id = ${p.app} AND d.message_id ${p.ids} AND ${latestDelivery(hint)}
   GROUP BY d.message_id, d.state`;

/** `(message_id, state, n)` rows as a count for every state of every id asked for. */
export function statesByMessage(
  ids: readonly string[],
  rows: Record<string, unknown>[],
): Map<string, Record<DeliveryState, number>> {
  const out = new Map(ids.map((id) => [id, noStates()]));
  for (const r of rows) {
    const counts = out.get(String(r.message_id));
    if (counts) counts[r.state as DeliveryState] = Number(r.n);
  }
  return out;
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
