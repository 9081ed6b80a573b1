/** The SQLite store's hot statements, prepared once per connection and grouped by who uses them. */
import type { Database as Db, Statement } from "better-sqlite3";
import { messageHeadColumns } from "../message-heads.js";
import {
  prepareDeadLetters,
  prepareReplayJobs,
  type DeadLetterStatements,
  type ReplayJobStatements,
} from "./dlq-statements.js";

export type CatalogueStatements = ReturnType<typeof prepareCatalogue>;
export type DeliveryStatements = ReturnType<typeof prepareDeliveries>;
export type HistoryStatements = ReturnType<typeof prepareHistory>;

export interface Statements {
  catalogue: CatalogueStatements;
  deliveries: DeliveryStatements;
  history: HistoryStatements;
  deadLetters: DeadLetterStatements;
  replayJobs: ReplayJobStatements;
}

/**
 * A disabled endpoint is sent nothing: its replays held for its circuit's probe (up to an hour
 * off) come due now, to end unsent at once rather than at the probe.
 */
const REPLAYS_DUE_NOW = `UPDATE deliveries SET next_attempt_at = @now
  WHERE endpoint_id = @endpoint AND state = 'pending' AND origin = 'replay'
  AND next_attempt_at > @now`;

/** Every hot statement, prepared once. */
export function prepareStatements(db: Db): Statements {
  const catalogue = prepareCatalogue(db);
  return {
    catalogue,
    // A message's answer is kept on its key by the statement that keeps every other answer.
    deliveries: prepareDeliveries(db, catalogue.finishIdem),
    history: prepareHistory(db),
    deadLetters: prepareDeadLetters(db, catalogue.finishIdem),
    replayJobs: prepareReplayJobs(db),
  };
}

/** Applications, endpoints, event types and idempotency keys. */
function prepareCatalogue(db: Db) {
  const p = (sql: string): Statement => db.prepare(sql);
  return {
    insertApp: p(`INSERT INTO applications
      (id, uid, name, rate_limit, metadata, delivery_policy, created_at, updated_at)
      VALUES (@id, @uid, @name, @rate_limit, @metadata, @delivery_policy, @created_at, @updated_at)`),
    updateApp: p(`UPDATE applications SET uid = @uid, name = @name, rate_limit = @rate_limit,
      metadata = @metadata, delivery_policy = @delivery_policy, updated_at = @updated_at
      WHERE id = @id AND (@seen_at IS NULL OR updated_at = @seen_at)`),
    // An id wins over another row's uid equal to it, whichever index the planner reads.
    findApp: p(
      "SELECT * FROM applications WHERE id = @v OR uid = @v ORDER BY id = @v DESC LIMIT 1",
    ),
    insertEndpoint: p(`INSERT INTO endpoints (id, app_id, uid, url, description, version, disabled,
      disabled_reason, filter_types, channels, headers, metadata, rate_limit, secrets,
      delivery_policy, created_at, updated_at)
      VALUES (@id, @app_id, @uid, @url, @description, @version, @disabled, @disabled_reason,
      @filter_types, @channels, @headers, @metadata, @rate_limit, @secrets, @delivery_policy,
      @created_at, @updated_at)`),
    replaysDueNow: p(REPLAYS_DUE_NOW),
    updateEndpoint: p(`UPDATE endpoints SET uid = @uid, url = @url, description = @description,
      version = @version, disabled = @disabled, disabled_reason = @disabled_reason,
      filter_types = @filter_types, channels = @channels, headers = @headers,
      metadata = @metadata, rate_limit = @rate_limit, secrets = @secrets,
      delivery_policy = @delivery_policy, updated_at = @updated_at
      WHERE id = @id AND app_id = @app_id AND (@seen_at IS NULL OR updated_at = @seen_at)`),
    findEndpoint: p(`SELECT * FROM endpoints WHERE app_id = @app AND (id = @v OR uid = @v)
      ORDER BY id = @v DESC LIMIT 1`),
    getEndpoint: p("SELECT * FROM endpoints WHERE id = ?"),
    getEndpoints: p("SELECT * FROM endpoints WHERE id IN (SELECT value FROM json_each(?))"),
    stoppedEndpoints: p(`SELECT j.value AS id, e.id IS NULL AS deleted FROM json_each(?) j
      LEFT JOIN endpoints e ON e.id = j.value WHERE e.id IS NULL OR e.disabled = 1`),
    insertEventType: p(`INSERT INTO event_types (name, description, archived, deprecated,
      feature_flags, group_name, schemas, created_at, updated_at)
      VALUES (@name, @description, @archived, @deprecated, @feature_flags, @group_name, @schemas,
      @created_at, @updated_at)`),
    updateEventType: p(`UPDATE event_types SET description = @description, archived = @archived,
      deprecated = @deprecated, feature_flags = @feature_flags, group_name = @group_name,
      schemas = @schemas, updated_at = @updated_at
      WHERE name = @name AND (@seen_at IS NULL OR updated_at = @seen_at)`),
    findEventType: p("SELECT * FROM event_types WHERE name = ?"),
    getIdem: p("SELECT * FROM idempotency_keys WHERE scope = ? AND key = ?"),
    putIdem: p(`INSERT OR REPLACE INTO idempotency_keys
      (scope, key, owner, fingerprint, state, locked_until, expires_at)
      VALUES (?, ?, ?, ?, 'started', ?, ?)`),
    finishIdem: p(`UPDATE idempotency_keys SET state = 'done', status = ?, body = ?
      WHERE scope = ? AND key = ? AND owner = ?`),
    // A key whose answer its request's write kept is left: what the write made is answered by it.
    dropIdem: p(`DELETE FROM idempotency_keys WHERE scope = ? AND key = ? AND owner = ?
      AND state <> 'done'`),
    forgetIdemScope: p("DELETE FROM idempotency_keys WHERE scope = ?"),
    forgetIdemRange: p("DELETE FROM idempotency_keys WHERE scope >= ? AND scope < ?"),
  };
}

/**
 * The first @window pending deliveries after the position (@due, @row) and due by @now, in due
 * order; `cols` of each, read in the subqueries, named for the statements that use them.
 */
const WALK = (cols: string) => `SELECT * FROM (SELECT ${cols}
    FROM deliveries INDEXED BY deliveries_due
    WHERE state = 'pending' AND next_attempt_at = @due AND rowid > @row AND @due <= @now
    ORDER BY rowid LIMIT @window)
  UNION ALL
  SELECT * FROM (SELECT ${cols}
    FROM deliveries INDEXED BY deliveries_due
    WHERE state = 'pending' AND next_attempt_at > @due AND next_attempt_at <= @now
    ORDER BY next_attempt_at, rowid LIMIT @window)
  LIMIT @window`;

/** Messages and their deliveries: intake, claiming, and recording what each attempt did. */
// What a claim returns per delivery: the row, and its message's event type and payload read in
// the same statement (one lookup by primary key each, no second round of statements). Claims
// return plain arrays (`raw`), read by these positions: no object with eleven named fields per
// row, only for the caller to copy it into a ClaimedDelivery.
const CLAIMED = `id, app_id, message_id, endpoint_id, origin, attempt_count, first_attempt_at,
  last_delay_ms, next_attempt_at,
  (SELECT event_type FROM messages m WHERE m.id = deliveries.message_id) AS event_type,
  (SELECT payload FROM messages m WHERE m.id = deliveries.message_id) AS payload`;
export const CLAIMED_AT = Object.freeze({
  id: 0,
  appId: 1,
  messageId: 2,
  endpointId: 3,
  origin: 4,
  attemptCount: 5,
  firstAttemptAt: 6,
  lastDelayMs: 7,
  dueAt: 8,
  eventType: 9,
  payload: 10,
  /** Returned by the due-order claims only: where a scan's walk stands. */
  rowid: 11,
});

function prepareDeliveries(db: Db, keepAnswer: Statement) {
  const p = (sql: string): Statement => db.prepare(sql);
  return {
    findMessageByEventId: p("SELECT * FROM messages WHERE app_id = ? AND event_id = ?"),
    findMessage: p(
      "SELECT * FROM messages WHERE app_id = ? AND (id = ? OR event_id = ?) ORDER BY id LIMIT 1",
    ),
    findMessages: p(
      "SELECT * FROM messages WHERE app_id = ? AND id IN (SELECT value FROM json_each(?))",
    ),
    findMessageHeads: p(
      `SELECT ${messageHeadColumns("messages", "length")} FROM messages
        WHERE app_id = ? AND id IN (SELECT value FROM json_each(?))`,
    ),
    insertMessage: p(`INSERT INTO messages
      (id, app_id, event_type, event_id, channels, tags, payload, created_at, deliver_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    keepAnswer,
    fanOutTargets: p(`SELECT e.id, e.filter_types, e.channels, c.state AS circuit_state,
      c.next_probe_at FROM endpoints e LEFT JOIN circuits c ON c.endpoint_id = e.id
      WHERE e.app_id = ? AND e.disabled = 0`),
    insertDelivery: p(`INSERT INTO deliveries
      (id, app_id, message_id, endpoint_id, state, origin, next_attempt_at, created_at)
      VALUES (?, ?, ?, ?, 'pending', ?, ?, ?)`),
    // Only while the message and the endpoint are there: retention may have taken the one, and
    // a deletion the other, since the caller read them.
    insertResend: p(`INSERT INTO deliveries
      (id, app_id, message_id, endpoint_id, state, origin, next_attempt_at, created_at)
      SELECT ?, ?, m.id, e.id, 'pending', 'resend', ?, ? FROM messages m, endpoints e
      WHERE m.id = ? AND e.id = ?`),
    // A resend of a message whose delivery to the endpoint is still waiting (for a retry, or for
    // its deliverAt) brings that delivery forward instead of adding another, which would send the
    // message twice. A replay is left to its dead-letter record; one being claimed is inflight.
    bringForwardWaiting: p(`UPDATE deliveries SET next_attempt_at = min(next_attempt_at, @now)
      WHERE rowid = (SELECT rowid FROM deliveries INDEXED BY deliveries_by_message
        WHERE message_id = @message AND endpoint_id = @endpoint AND state = 'pending'
          AND origin <> 'replay' ORDER BY rowid LIMIT 1)
      RETURNING *`),
    // A delivery the engine's intake took as it was accepted: written as a claim would leave it.
    insertClaimedDelivery: p(`INSERT INTO deliveries
      (id, app_id, message_id, endpoint_id, state, origin, next_attempt_at, lease_until, created_at)
      VALUES (?, ?, ?, ?, 'inflight', 'message', ?, ?, ?)`),
    recoverInflight: p(`UPDATE deliveries SET state = 'pending', lease_until = NULL,
      next_attempt_at = min(coalesce(next_attempt_at, @now), @now) WHERE state = 'inflight'`),
    // The subquery walks the partial index of pending rows in due order; the outer UPDATE claims
    // them in the same statement, so no other claimer can take the same rows. By rowid, which
    // every index entry carries: by id, each row would first be looked up in the id index.
    claim: p(`UPDATE deliveries SET state = 'inflight', lease_until = @lease
      WHERE rowid IN (SELECT rowid FROM deliveries INDEXED BY deliveries_due
        WHERE state = 'pending' AND next_attempt_at >= @from AND next_attempt_at <= @now
          AND endpoint_id NOT IN (SELECT value FROM json_each(@exclude))
        ORDER BY next_attempt_at LIMIT @limit)
      RETURNING ${CLAIMED}, rowid`).raw(true),
    // The engine's scan past excluded endpoints: the claim above, from a position (due, rowid)
    // and over a window of at most @window index entries, so that stepping past a full
    // endpoint's backlog costs one window per call, however long the backlog. The entries due at
    // @due after @row come first, then those due later: each half is one range of the index,
    // walked in its order (rowid orders entries that share a due time), and UNION ALL reads its
    // halves in turn. (The subqueries cost about 20 µs a call more than the claim above, which
    // a scan excluding nothing uses instead: it walks only rows it claims.)
    scan: p(`UPDATE deliveries SET state = 'inflight', lease_until = @lease
      WHERE rowid IN (SELECT r FROM (${WALK("rowid AS r, endpoint_id AS ep")})
        WHERE ep NOT IN (SELECT value FROM json_each(@exclude)) LIMIT @limit)
      RETURNING ${CLAIMED}, rowid`).raw(true),
    // Where a window ended that filled no batch: its last entry, the one @skip entries on among
    // those still pending after the position (the window's claimed rows have left the index).
    // Read from the index alone.
    scanEnd: p(`SELECT due, r FROM (${WALK("next_attempt_at AS due, rowid AS r")})
      LIMIT 1 OFFSET @skip`),
    // One endpoint's due rows through its own index: the cost is the batch, not the backlog.
    claimForEndpoint: p(`UPDATE deliveries SET state = 'inflight', lease_until = @lease
      WHERE rowid IN (SELECT rowid FROM deliveries INDEXED BY deliveries_pending_by_endpoint
        WHERE state = 'pending' AND endpoint_id = @endpoint AND next_attempt_at <= @now
        ORDER BY next_attempt_at LIMIT @limit)
      RETURNING ${CLAIMED}`).raw(true),
    // Up to @window endpoints with pending deliveries after @after, each with its earliest due
    // time: one seek into the per-endpoint index to find the next endpoint, one for its first
    // due row, so that an endpoint's backlog, however long, costs nothing to step over.
    dueEndpoints: p(`WITH RECURSIVE eps(ep) AS (
        SELECT @after
        UNION ALL
        SELECT (SELECT endpoint_id FROM deliveries INDEXED BY deliveries_pending_by_endpoint
          WHERE state = 'pending' AND endpoint_id > eps.ep ORDER BY endpoint_id LIMIT 1)
        FROM eps WHERE eps.ep IS NOT NULL LIMIT @window + 1)
      SELECT ep, (SELECT min(next_attempt_at) FROM deliveries
          INDEXED BY deliveries_pending_by_endpoint
          WHERE state = 'pending' AND endpoint_id = eps.ep) AS due
      FROM eps WHERE ep > @after`),
    // Forced onto the due index: the planner otherwise prefers a scan of the per-endpoint one.
    nextDue: p(`SELECT next_attempt_at AS at FROM deliveries INDEXED BY deliveries_due
      WHERE state = 'pending' AND next_attempt_at > @after
        AND endpoint_id NOT IN (SELECT value FROM json_each(@exclude))
      ORDER BY next_attempt_at LIMIT 1`),
    // Recording an outcome runs these once per delivery, with positional parameters: binding by
    // name looks each one up on an object, about 1.3 µs more for the attempt's sixteen.
    // (state, at, at, next, delay, id)
    advanceDelivery: p(`UPDATE deliveries SET state = ?, attempt_count = attempt_count + 1,
      first_attempt_at = coalesce(first_attempt_at, ?), last_attempt_at = ?,
      next_attempt_at = ?, last_delay_ms = coalesce(?, last_delay_ms), lease_until = NULL
      WHERE id = ? AND state = 'inflight' RETURNING dead_letter_id`),
    attemptStored: p("SELECT 1 AS stored FROM attempts WHERE id = ?"),
    insertAttempt: p(`INSERT INTO attempts (id, delivery_id, app_id, message_id, endpoint_id, at,
      trigger, url, status, error, error_detail, duration_ms, response_snippet, outcome,
      retry_after_ms, retry_after_ignored) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    replaysDueNow: p(REPLAYS_DUE_NOW),
    disableEndpoint: p(
      // updated_at only moves forward, so a read-modify-write of the endpoint sees this change.
      `UPDATE endpoints SET disabled = 1, disabled_reason = ?, updated_at = MAX(updated_at + 1, ?)
      WHERE id = ?`,
    ),
    bumpStats: p(`INSERT INTO endpoint_stats (endpoint_id, retry_after_honoured,
      retry_after_capped, retry_after_ignored, last_success_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (endpoint_id) DO UPDATE SET
        retry_after_honoured = retry_after_honoured + excluded.retry_after_honoured,
        retry_after_capped = retry_after_capped + excluded.retry_after_capped,
        retry_after_ignored = retry_after_ignored + excluded.retry_after_ignored,
        last_success_at = CASE
          WHEN excluded.last_success_at IS NULL THEN last_success_at
          WHEN last_success_at IS NULL THEN excluded.last_success_at
          ELSE max(last_success_at, excluded.last_success_at) END`),
    // (state, next, delay, id)
    endWithoutAttempt: p(`UPDATE deliveries SET state = ?, next_attempt_at = ?,
      last_delay_ms = coalesce(?, last_delay_ms), lease_until = NULL
      WHERE id = ? AND state = 'inflight' RETURNING dead_letter_id`),
    release: p(`UPDATE deliveries SET state = 'pending', lease_until = NULL, next_attempt_at = ?
      WHERE id = ? AND state = 'inflight'`),
    // (until, endpoint, until, attempts, window, until): a retry with no attempt left at `until`
    // (endedBeforeSending) keeps its own time.
    pauseEndpoint: p(`UPDATE deliveries SET next_attempt_at = ?
      WHERE endpoint_id = ? AND state = 'pending' AND next_attempt_at < ?
        AND (attempt_count = 0 OR first_attempt_at IS NULL
          OR (attempt_count < ? AND first_attempt_at + ? >= ?))`),
    getDelivery: p("SELECT * FROM deliveries WHERE id = ?"),
    deliveriesOfMessage: p("SELECT * FROM deliveries WHERE message_id = ? ORDER BY id"),
  };
}

/** Circuits, endpoint stats, attempts and dead letters as the API and dashboard read them. */
function prepareHistory(db: Db) {
  const p = (sql: string): Statement => db.prepare(sql);
  return {
    saveCircuit: p(`INSERT INTO circuits (endpoint_id, state, since, reason, next_probe_at,
      reopen_count, opened_at) VALUES (@id, @state, @since, @reason, @probe, @reopen, @opened)
      ON CONFLICT (endpoint_id) DO UPDATE SET state = @state, since = @since, reason = @reason,
        next_probe_at = @probe, reopen_count = @reopen, opened_at = @opened`),
    insertTransition: p(`INSERT INTO circuit_transitions (endpoint_id, from_state, to_state, at,
      reason) VALUES (?, ?, ?, ?, ?)`),
    getCircuit: p("SELECT * FROM circuits WHERE endpoint_id = ?"),
    probeDueAfter: p(`SELECT next_probe_at FROM circuits
      WHERE endpoint_id = @id AND state = 'open' AND next_probe_at > @at`),
    setProbe: p("UPDATE circuits SET next_probe_at = @at WHERE endpoint_id = @id"),
    heldForProbe: p(`UPDATE deliveries SET next_attempt_at = @at WHERE endpoint_id = @id
      AND state = 'pending' AND next_attempt_at > @at AND next_attempt_at <= @probe`),
    unclosedCircuits: p(`SELECT c.* FROM circuits c JOIN endpoints e ON e.id = c.endpoint_id
      WHERE c.state <> 'closed' AND e.disabled = 0 ORDER BY c.since DESC, c.endpoint_id LIMIT ?`),
    transitions: p(`SELECT * FROM circuit_transitions WHERE endpoint_id = ?
      ORDER BY seq DESC LIMIT ?`),
    getStats: p("SELECT * FROM endpoint_stats WHERE endpoint_id = ?"),
    circuitsOf: p("SELECT * FROM circuits WHERE endpoint_id IN (SELECT value FROM json_each(?))"),
    statsOf: p(
      "SELECT * FROM endpoint_stats WHERE endpoint_id IN (SELECT value FROM json_each(?))",
    ),
    findAttempt: p("SELECT * FROM attempts WHERE id = ? AND app_id = ?"),
  };
}
