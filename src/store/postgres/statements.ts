/**
 * The PostgreSQL store's fixed statements, grouped by who uses them. Unqualified table names
 * resolve in hookline's schema (every pooled connection's search_path). Those run for every
 * message or delivery are prepared (see `prepared`); the rest are sent as text.
 */
import { messageHeadColumns } from "../message-heads.js";
import { prepared } from "./database.js";

/** Applications, endpoints, event types and idempotency keys. */
/**
 * A disabled endpoint is sent nothing: its replays held for its circuit's probe (up to an hour
 * off) come due now, to end unsent at once rather than at the probe. ($1: now, $2: endpoint.)
 */
const REPLAYS_DUE_NOW = `UPDATE deliveries SET next_attempt_at = $1
  WHERE endpoint_id = $2 AND state = 'pending' AND origin = 'replay' AND next_attempt_at > $1`;

/** A request's answer kept on the idempotency key it still holds (scope, key, owner, status, body). */
const KEEP_ANSWER = `UPDATE idempotency_keys SET state = 'done', status = $4, body = $5
  WHERE scope = $1 AND key = $2 AND owner = $3`;

export const CATALOGUE = {
  replaysDueNow: REPLAYS_DUE_NOW,
  insertApp: `INSERT INTO applications
    (id, uid, name, rate_limit, metadata, delivery_policy, created_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
  updateApp: `UPDATE applications SET uid = $2, name = $3, rate_limit = $4, metadata = $5,
    delivery_policy = $6, updated_at = $7
    WHERE id = $1 AND ($8::bigint IS NULL OR updated_at = $8)`,
  // An id wins over another application's uid that happens to equal it.
  findApp: "SELECT * FROM applications WHERE id = $1 OR uid = $1 ORDER BY id = $1 DESC LIMIT 1",
  insertEndpoint: `INSERT INTO endpoints (id, app_id, uid, url, description, version, disabled,
    disabled_reason, filter_types, channels, headers, metadata, rate_limit, secrets,
    delivery_policy, created_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
  updateEndpoint: `UPDATE endpoints SET uid = $3, url = $4, description = $5, version = $6,
    disabled = $7, disabled_reason = $8, filter_types = $9, channels = $10, headers = $11,
    metadata = $12, rate_limit = $13, secrets = $14, delivery_policy = $15, updated_at = $16
    WHERE id = $1 AND app_id = $2 AND ($17::bigint IS NULL OR updated_at = $17)`,
  findEndpoint: `SELECT * FROM endpoints WHERE app_id = $1 AND (id = $2 OR uid = $2)
    ORDER BY id = $2 DESC LIMIT 1`,
  getEndpoint: "SELECT * FROM endpoints WHERE id = $1",
  getEndpoints: "SELECT * FROM endpoints WHERE id = ANY($1::text[])",
  stoppedEndpoints: `SELECT i.id, e.id IS NULL AS deleted FROM unnest($1::text[]) AS i(id)
    LEFT JOIN endpoints e ON e.id = i.id WHERE e.id IS NULL OR e.disabled`,
  // Deleting endpoints holds their rows from the start: the first of what it takes, in the order
  // recording outcomes takes them too (endpoint, job, record, delivery).
  endpointExists: "SELECT 1 FROM endpoints WHERE id = $1 AND app_id = $2 FOR UPDATE",
  endpointsOfApp: "SELECT id FROM endpoints WHERE app_id = $1 ORDER BY id FOR UPDATE",
  insertEventType: `INSERT INTO event_types (name, description, archived, deprecated,
    feature_flags, group_name, schemas, created_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
  updateEventType: `UPDATE event_types SET description = $2, archived = $3, deprecated = $4,
    feature_flags = $5, group_name = $6, schemas = $7, updated_at = $8
    WHERE name = $1 AND ($9::bigint IS NULL OR updated_at = $9)`,
  findEventType: "SELECT * FROM event_types WHERE name = $1",
  deleteEventType: "DELETE FROM event_types WHERE name = $1",
  lockIdem: "SELECT * FROM idempotency_keys WHERE scope = $1 AND key = $2 FOR UPDATE",
  insertIdem: `INSERT INTO idempotency_keys (scope, key, owner, fingerprint, state, locked_until,
    expires_at) VALUES ($1, $2, $3, $4, 'started', $5, $6)
    ON CONFLICT (scope, key) DO NOTHING`,
  restartIdem: `UPDATE idempotency_keys SET owner = $3, fingerprint = $4, state = 'started',
    status = NULL, body = NULL, locked_until = $5, expires_at = $6 WHERE scope = $1 AND key = $2`,
  finishIdem: KEEP_ANSWER,
  // A key whose answer its request's write kept is left: what the write made is answered by it.
  dropIdem: `DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND owner = $3
    AND state <> 'done'`,
  forgetIdemScopes: "DELETE FROM idempotency_keys WHERE scope = ANY($1::text[])",
  // Every range in one statement: an endpoint's are four for each of its application's tokens.
  forgetIdemRanges: `DELETE FROM idempotency_keys k
    USING unnest($1::text[], $2::text[]) AS r(lo, hi)
    WHERE k.scope >= r.lo AND k.scope < r.hi`,
} as const;

/** What a claim returns of each delivery it claimed (the `claimed` CTE's rows). */
const CLAIMED = `d.id, d.app_id, d.message_id, d.endpoint_id, d.origin, d.attempt_count,
      d.first_attempt_at, d.last_delay_ms, d.next_attempt_at`;

/**
 * A claim's rows with their message's type and payload, joined in the claim's own statement: one
 * round trip, and no transaction around it. A delivery whose message is gone (its application
 * was deleted under the same locks) comes back without one and is not sent. `lead` puts columns
 * before the claim's own.
 */
const withMessages = (lead = "") => `SELECT ${lead}c.*, m.event_type, m.payload
    FROM claimed c LEFT JOIN messages m ON m.id = c.message_id`;

/** How a batch's additions meet an endpoint's existing stats row (`bumpStats`, `recordPlain`). */
const ADD_TO_STATS = `ON CONFLICT (endpoint_id) DO UPDATE SET
      retry_after_honoured = s.retry_after_honoured + excluded.retry_after_honoured,
      retry_after_capped = s.retry_after_capped + excluded.retry_after_capped,
      retry_after_ignored = s.retry_after_ignored + excluded.retry_after_ignored,
      last_success_at = GREATEST(s.last_success_at, excluded.last_success_at)`;

/**
 * An outcome or release moves a claimed row only while the worker that sends it still holds it
 * (`v.claimed_by`, null without a fleet): a worker reaped while alive must not overwrite the
 * claim another worker has made of the same delivery since.
 */
const STILL_HELD = "(v.claimed_by IS NULL OR d.claimed_by = v.claimed_by)";

/**
 * An ownership row a claim may take over (ON CONFLICT … WHERE): its worker has been declared dead
 * (reaped: its row is gone), and the row itself is older than `deadBefore`. A worker that is only
 * silent keeps its endpoints until a reaping declares it dead: its heartbeat may still land (a
 * stall, a pause), and then it goes on sending what it holds, which a taker would send beside it.
 * The workers table is read in the claim's own snapshot, which may predate a worker that joined
 * and took the endpoint while the claim ran; the row is read as it is now, so its fresh `since`
 * keeps that worker's ownership.
 */
export const OWNER_DEAD = (deadBefore: string) => `endpoint_owners.since < ${deadBefore}
        AND NOT EXISTS (SELECT 1 FROM workers w WHERE w.id = endpoint_owners.worker_id)`;

/**
 * A claiming worker must have a row: one reaped while alive (a pause) that has not yet noticed,
 * or one joining again whose registration is on its way, claims nothing. Reaping puts back the
 * claims of workers without a row, so such a claim could be sent twice. The row is locked (KEY
 * SHARE: heartbeats still write it) until the claim commits, so a reap deleting it meanwhile
 * either waits for the claim and then puts its rows back, or makes the claim wait and find no row.
 */
export const REGISTERED = (worker: string) =>
  `EXISTS (SELECT 1 FROM workers WHERE id = ${worker} FOR KEY SHARE)`;

/**
 * One endpoint's due rows, for a claim ordered by endpoint and due time, which only
 * deliveries_pending_by_endpoint gives. The endpoint comes as an array of one on purpose: an
 * equality (`endpoint_id = $2`) makes the endpoint a constant to the planner, the order by due
 * time alone, and deliveries_due, filtered by endpoint, serves that as well. The plan PostgreSQL
 * settles on for a prepared statement, made once for every endpoint, then took that path and read
 * past every other endpoint's rows due first: the claim's cost followed their backlog, not its
 * batch. Matched against an array, the endpoint stays part of the order.
 */
const ONE_ENDPOINT =
  "state = 'pending' AND endpoint_id = ANY($2::text[]) AND next_attempt_at <= $1";

/** Messages and their deliveries: intake, claiming, and recording what each attempt did. */
export const DELIVERIES = {
  findMessageByEventId: "SELECT * FROM messages WHERE app_id = $1 AND event_id = $2",
  findMessages: "SELECT * FROM messages WHERE app_id = $1 AND id = ANY($2::text[])",
  findMessageHeads: `SELECT ${messageHeadColumns("messages", "octet_length")} FROM messages
    WHERE app_id = $1 AND id = ANY($2::text[])`,
  findMessage: `SELECT * FROM messages WHERE app_id = $1 AND (id = $2 OR event_id = $2)
    ORDER BY id LIMIT 1`,
  // Two accepts of one eventId at once: the second waits for the first's commit, then does nothing.
  insertMessage: prepared(
    "insertMessage",
    `INSERT INTO messages
    (id, app_id, event_type, event_id, channels, tags, payload, created_at, deliver_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
    ON CONFLICT (app_id, event_id) WHERE event_id IS NOT NULL DO NOTHING`,
  ),
  // Prepared here: every keyed message post runs it.
  keepAnswer: prepared("keepAnswer", KEEP_ANSWER),
  fanOutTargets: prepared(
    "fanOutTargets",
    `SELECT e.id, e.filter_types, e.channels, c.state AS circuit_state,
    c.next_probe_at FROM endpoints e LEFT JOIN circuits c ON c.endpoint_id = e.id
    WHERE e.app_id = $1 AND NOT e.disabled ORDER BY e.id`,
  ),
  insertDeliveries: prepared(
    "insertDeliveries",
    `INSERT INTO deliveries
    (id, app_id, message_id, endpoint_id, state, origin, next_attempt_at, created_at)
    SELECT v.id, $1::text, $2::text, v.endpoint_id, 'pending', $3::text, v.due, $4::bigint
    FROM unnest($5::text[], $6::text[], $7::bigint[]) AS v(id, endpoint_id, due)`,
  ),
  // The message is share-locked while the row goes in: retention, which locks the messages it
  // takes, either waits for this to commit (and then sees the resend due) or has taken the
  // message already (and this writes nothing). So is the endpoint, first, as deleting an
  // application takes them: a deletion under way (it holds the endpoint from its start) is waited
  // for, and leaves no endpoint to write to; one that comes after waits, and takes this row too.
  // A resend of a message whose delivery to the endpoint is still waiting (for a retry, or for
  // its deliverAt) brings that delivery forward instead of adding another, which would send the
  // message twice. A replay is left to its dead-letter record. A waiting row locked by a claim,
  // an outcome or a deletion is skipped rather than waited for (waiting could deadlock with a
  // deletion that holds it and wants the endpoint): the resend is then added, as before.
  insertResend: `WITH e AS (SELECT id FROM endpoints WHERE id = $4 FOR KEY SHARE),
    m AS (SELECT id FROM messages WHERE id = $3 AND EXISTS (SELECT 1 FROM e) FOR KEY SHARE),
    w AS (SELECT id FROM deliveries WHERE message_id = (SELECT id FROM m) AND endpoint_id = $4
      AND state = 'pending' AND origin <> 'replay' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED),
    brought AS (UPDATE deliveries d SET next_attempt_at = LEAST(d.next_attempt_at, $5)
      FROM w WHERE d.id = w.id RETURNING d.*),
    added AS (INSERT INTO deliveries
      (id, app_id, message_id, endpoint_id, state, origin, next_attempt_at, created_at)
      SELECT $1, $2, m.id, $4, 'pending', 'resend', $5, $5 FROM m
      WHERE NOT EXISTS (SELECT 1 FROM w) RETURNING *)
    SELECT * FROM brought UNION ALL SELECT * FROM added`,
  recoverInflight: `UPDATE deliveries SET state = 'pending', lease_until = NULL,
    next_attempt_at = LEAST(coalesce(next_attempt_at, $1), $1) WHERE state = 'inflight'`,
  // Why SKIP LOCKED: claimers running at once (this process's pool, or other workers) never wait
  // on each other's rows and never take the same row twice; each skips what another is claiming
  // and takes the next due rows instead. The CTE walks the partial index of pending rows in due
  // order and locks at most $3 of them; the UPDATE claims exactly those in the same statement.
  claim: prepared(
    "claim",
    `WITH due AS (
      SELECT id FROM deliveries
      WHERE state = 'pending' AND next_attempt_at <= $1 AND endpoint_id <> ALL($2::text[])
        AND next_attempt_at >= $5
      ORDER BY next_attempt_at
      LIMIT $3
      FOR UPDATE SKIP LOCKED
    ), claimed AS (
      UPDATE deliveries d SET state = 'inflight', lease_until = $4
      FROM due WHERE d.id = due.id
      RETURNING ${CLAIMED}
    )
    ${withMessages()}`,
  ),
  // The claim of a worker sharing the database ($6 the worker, $7 the dead-before time). Rows of
  // endpoints another worker owns are passed over, however long it has been silent, until a
  // reaping declares it dead (OWNER_DEAD); of the rest, the worker's own are claimed, and
  // endpoints nobody owns become its own in the same statement. Two workers taking
  // one endpoint at once meet on its endpoint_owners row: the second's ON CONFLICT sees the
  // first's row and changes nothing, so its rows of that endpoint stay pending, and it reports
  // the endpoint as contended (kind 'lost') so the owner can be told to look for them.
  // Endpoints are taken in id order so two claims never wait on each other in opposite orders.
  claimOwned: prepared(
    "claimOwned",
    `WITH due AS (
      SELECT d.id, d.endpoint_id, o.worker_id IS NOT DISTINCT FROM $6 AS mine
      FROM deliveries d
      LEFT JOIN endpoint_owners o ON o.endpoint_id = d.endpoint_id
      LEFT JOIN workers w ON w.id = o.worker_id
      WHERE d.state = 'pending' AND d.next_attempt_at <= $1 AND d.endpoint_id <> ALL($2::text[])
        AND d.next_attempt_at >= $5 AND ${REGISTERED("$6")}
        AND (o.worker_id IS NULL OR o.worker_id = $6 OR w.id IS NULL)
      ORDER BY d.next_attempt_at
      LIMIT $3
      FOR UPDATE OF d SKIP LOCKED
    ), taken AS (
      INSERT INTO endpoint_owners (endpoint_id, worker_id, since)
      SELECT endpoint_id, $6, $1 FROM due WHERE NOT mine GROUP BY endpoint_id
      ORDER BY endpoint_id
      ON CONFLICT (endpoint_id) DO UPDATE SET worker_id = excluded.worker_id, since = excluded.since
      WHERE ${OWNER_DEAD("$7")}
      RETURNING endpoint_id
    ), claimed AS (
      UPDATE deliveries d SET state = 'inflight', lease_until = $4, claimed_by = $6
      FROM due WHERE d.id = due.id
        AND (due.mine OR due.endpoint_id IN (SELECT endpoint_id FROM taken))
      RETURNING ${CLAIMED}
    )
    ${withMessages("'claimed' AS kind, ")}
    UNION ALL
    SELECT DISTINCT 'lost', NULL::text, NULL::text, NULL::text, endpoint_id, NULL::text,
      NULL::integer, NULL::bigint, NULL::bigint, NULL::bigint, NULL::text, NULL::bytea
    FROM due WHERE NOT mine AND endpoint_id NOT IN (SELECT endpoint_id FROM taken)`,
  ),
  // One endpoint ($2, an array of one) through its own index, as ONE_ENDPOINT says, for a worker
  // that owns it or may take it now; ownership is taken only when there is due work to take with it.
  claimOwnedForEndpoint: prepared(
    "claimOwnedForEndpoint",
    `WITH due AS (
      SELECT id FROM deliveries
      WHERE ${ONE_ENDPOINT} AND ${REGISTERED("$5")}
      ORDER BY endpoint_id, next_attempt_at
      LIMIT $3
      FOR UPDATE SKIP LOCKED
    ), owner AS (
      INSERT INTO endpoint_owners (endpoint_id, worker_id, since)
      SELECT ($2::text[])[1], $5, $1 WHERE EXISTS (SELECT 1 FROM due)
      ON CONFLICT (endpoint_id) DO UPDATE SET worker_id = excluded.worker_id,
        since = CASE WHEN endpoint_owners.worker_id = excluded.worker_id
          THEN endpoint_owners.since ELSE excluded.since END
      WHERE endpoint_owners.worker_id = excluded.worker_id OR ${OWNER_DEAD("$6")}
      RETURNING endpoint_id
    ), claimed AS (
      UPDATE deliveries d SET state = 'inflight', lease_until = $4, claimed_by = $5
      FROM due WHERE d.id = due.id AND EXISTS (SELECT 1 FROM owner)
      RETURNING ${CLAIMED}
    )
    ${withMessages()}`,
  ),
  // One endpoint's due rows ($2, an array of one) through its own index, as ONE_ENDPOINT says:
  // the cost is the batch, not the backlog.
  claimForEndpoint: prepared(
    "claimForEndpoint",
    `WITH due AS (
      SELECT id FROM deliveries
      WHERE ${ONE_ENDPOINT}
      ORDER BY endpoint_id, next_attempt_at
      LIMIT $3
      FOR UPDATE SKIP LOCKED
    ), claimed AS (
      UPDATE deliveries d SET state = 'inflight', lease_until = $4
      FROM due WHERE d.id = due.id
      RETURNING ${CLAIMED}
    )
    ${withMessages()}`,
  ),
  // Up to $2 endpoints with pending deliveries after $1, each with its earliest due time: one
  // index seek to find the next endpoint, one for its first due row (the recursion runs only as
  // far as the LIMIT reads it). Ids compare as the column does, in the "C" collation.
  dueEndpoints: prepared(
    "dueEndpoints",
    `WITH RECURSIVE eps(ep) AS (
      SELECT $1::text COLLATE "C"
      UNION ALL
      SELECT (SELECT endpoint_id FROM deliveries
        WHERE state = 'pending' AND endpoint_id > eps.ep ORDER BY endpoint_id LIMIT 1)
      FROM eps WHERE eps.ep IS NOT NULL)
    SELECT ep, (SELECT min(next_attempt_at) FROM deliveries
        WHERE state = 'pending' AND endpoint_id = eps.ep) AS due
    FROM eps WHERE ep > $1 LIMIT $2`,
  ),
  nextDue: prepared(
    "nextDue",
    `SELECT next_attempt_at AS at FROM deliveries
    WHERE state = 'pending' AND endpoint_id <> ALL($1::text[]) AND next_attempt_at > $2
    ORDER BY next_attempt_at LIMIT 1`,
  ),
  // One statement for the whole batch: each claimed delivery moves to its next state; `tried` says
  // whether an attempt was made (an attempt-less end spends none). Unclaimed ones are left alone.
  advance: prepared(
    "advance",
    `UPDATE deliveries d SET state = v.state,
      attempt_count = d.attempt_count + CASE WHEN v.tried THEN 1 ELSE 0 END,
      first_attempt_at = CASE WHEN v.tried THEN coalesce(d.first_attempt_at, v.at)
        ELSE d.first_attempt_at END,
      last_attempt_at = CASE WHEN v.tried THEN v.at ELSE d.last_attempt_at END,
      next_attempt_at = v.next, last_delay_ms = coalesce(v.delay, d.last_delay_ms),
      lease_until = NULL
    FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[], $6::text[],
        $7::boolean[])
      AS v(id, state, at, next, delay, claimed_by, tried)
    WHERE d.id = v.id AND d.state = 'inflight' AND ${STILL_HELD}
    RETURNING d.id, d.dead_letter_id`,
  ),
  // The common batch, every outcome an attempt that succeeded or will be retried, in one
  // statement and so one round trip (with no BEGIN and COMMIT around it): the deliveries move
  // on, their attempts go in, and the endpoints' stats grow, all from the rows that moved (still
  // claimed), as `advance`, `insertAttempts` and `bumpStats` do one after another. Stats rows
  // are taken in endpoint order, so two batches at once lock them in the same order.
  recordPlain: prepared(
    "recordPlain",
    `WITH v AS (
      SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[],
          $6::text[], $7::text[], $8::text[], $9::text[], $10::integer[], $11::text[],
          $12::text[], $13::integer[], $14::text[], $15::text[], $16::bigint[], $17::text[],
          $18::text[])
        WITH ORDINALITY AS v(id, state, at, next, delay, claimed_by, attempt_id, trigger, url,
          status, error, detail, duration, snippet, outcome, asked, ignored, retry_after, n)
    ), moved AS (
      UPDATE deliveries d SET state = v.state, attempt_count = d.attempt_count + 1,
        first_attempt_at = coalesce(d.first_attempt_at, v.at), last_attempt_at = v.at,
        next_attempt_at = v.next, last_delay_ms = coalesce(v.delay, d.last_delay_ms),
        lease_until = NULL
      FROM v WHERE d.id = v.id AND d.state = 'inflight' AND ${STILL_HELD}
      RETURNING d.id, d.app_id, d.message_id, d.endpoint_id
    ), recorded AS (
      INSERT INTO attempts (id, delivery_id, app_id, message_id, endpoint_id, at, trigger, url,
        status, error, error_detail, duration_ms, response_snippet, outcome, retry_after_ms,
        retry_after_ignored)
      SELECT v.attempt_id, m.id, m.app_id, m.message_id, m.endpoint_id, v.at, v.trigger, v.url,
        v.status, v.error, v.detail, v.duration, v.snippet, v.outcome, v.asked, v.ignored
      FROM v JOIN moved m ON m.id = v.id ORDER BY v.n
    ), stats AS (
      INSERT INTO endpoint_stats AS s (endpoint_id, retry_after_honoured, retry_after_capped,
        retry_after_ignored, last_success_at)
      SELECT m.endpoint_id, count(*) FILTER (WHERE v.retry_after = 'honoured'),
        count(*) FILTER (WHERE v.retry_after = 'capped'),
        count(*) FILTER (WHERE v.retry_after = 'ignored'),
        max(v.at) FILTER (WHERE v.state = 'succeeded')
      FROM v JOIN moved m ON m.id = v.id
      WHERE v.retry_after IS NOT NULL OR v.state = 'succeeded'
      GROUP BY m.endpoint_id ORDER BY m.endpoint_id
      ${ADD_TO_STATS}
    )
    SELECT id FROM moved`,
  ),
  // Which of these attempts are stored: an outcome recorded again after its commit's answer was
  // lost moves no delivery, yet the store holds it.
  storedAttempts: "SELECT id FROM attempts WHERE id = ANY($1::text[])",
  insertAttempts: prepared(
    "insertAttempts",
    `INSERT INTO attempts (id, delivery_id, app_id, message_id, endpoint_id, at,
      trigger, url, status, error, error_detail, duration_ms, response_snippet, outcome,
      retry_after_ms, retry_after_ignored)
    SELECT v.id, d.id, d.app_id, d.message_id, d.endpoint_id, v.at, v.trigger, v.url, v.status,
      v.error, v.detail, v.duration, v.snippet, v.outcome, v.asked, v.ignored
    FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::integer[],
        $7::text[], $8::text[], $9::integer[], $10::text[], $11::text[], $12::bigint[],
        $13::text[])
      WITH ORDINALITY AS v(id, delivery, at, trigger, url, status, error, detail, duration,
        snippet, outcome, asked, ignored, n)
    JOIN deliveries d ON d.id = v.delivery ORDER BY v.n`,
  ),
  // A batch's endpoints, in id order, held before anything else it writes: NO KEY UPDATE, what
  // disabling one takes anyway, and what waits for a deletion (FOR UPDATE) under way.
  lockEndpoints: `SELECT 1 FROM endpoints WHERE id = ANY($1::text[]) ORDER BY id
    FOR NO KEY UPDATE`,
  // updated_at only moves forward, so a read-modify-write of the endpoint sees this change.
  replaysDueNow: REPLAYS_DUE_NOW,
  disableEndpoint: `UPDATE endpoints SET disabled = true, disabled_reason = $1,
    updated_at = GREATEST(updated_at + 1, $2) WHERE id = $3`,
  bumpStats: prepared(
    "bumpStats",
    `INSERT INTO endpoint_stats AS s (endpoint_id, retry_after_honoured,
      retry_after_capped, retry_after_ignored, last_success_at)
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[])
    ${ADD_TO_STATS}`,
  ),
  release: prepared(
    "release",
    `UPDATE deliveries d SET state = 'pending', lease_until = NULL, next_attempt_at = v.at
    FROM unnest($1::text[], $2::bigint[], $3::text[]) AS v(id, at, claimed_by)
    WHERE d.id = v.id AND d.state = 'inflight' AND ${STILL_HELD}`,
  ),
  // A retry with no attempt left at the probe (endedBeforeSending) keeps its own time.
  pauseEndpoint: `UPDATE deliveries SET next_attempt_at = $1
    WHERE endpoint_id = $2 AND state = 'pending' AND next_attempt_at < $1
      AND (attempt_count = 0 OR first_attempt_at IS NULL
        OR (attempt_count < $3 AND first_attempt_at + $4::bigint >= $1))`,
  getDelivery: "SELECT * FROM deliveries WHERE id = $1",
  deliveriesOfMessage: "SELECT * FROM deliveries WHERE message_id = $1 ORDER BY id",
} as const;

/** Circuits, endpoint stats and attempts as the API and dashboard read them. */
export const HISTORY = {
  saveCircuit: `INSERT INTO circuits (endpoint_id, state, since, reason, next_probe_at,
      reopen_count, opened_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
    ON CONFLICT (endpoint_id) DO UPDATE SET state = excluded.state, since = excluded.since,
      reason = excluded.reason, next_probe_at = excluded.next_probe_at,
      reopen_count = excluded.reopen_count, opened_at = excluded.opened_at`,
  insertTransition: `INSERT INTO circuit_transitions (endpoint_id, from_state, to_state, at, reason)
    VALUES ($1, $2, $3, $4, $5)`,
  getCircuit: "SELECT * FROM circuits WHERE endpoint_id = $1",
  // Under the row's lock: the held deliveries are those due up to the probe time read here.
  probeDueAfter: `SELECT next_probe_at FROM circuits
    WHERE endpoint_id = $1 AND state = 'open' AND next_probe_at > $2 FOR UPDATE`,
  setProbe: "UPDATE circuits SET next_probe_at = $2 WHERE endpoint_id = $1",
  heldForProbe: `UPDATE deliveries SET next_attempt_at = $2 WHERE endpoint_id = $1
    AND state = 'pending' AND next_attempt_at > $2 AND next_attempt_at <= $3`,
  unclosedCircuits: `SELECT c.* FROM circuits c JOIN endpoints e ON e.id = c.endpoint_id
    WHERE c.state <> 'closed' AND NOT e.disabled ORDER BY c.since DESC, c.endpoint_id LIMIT $1`,
  transitions: `SELECT * FROM circuit_transitions WHERE endpoint_id = $1
    ORDER BY seq DESC LIMIT $2`,
  getStats: "SELECT * FROM endpoint_stats WHERE endpoint_id = $1",
  circuitsOf: "SELECT * FROM circuits WHERE endpoint_id = ANY($1::text[])",
  statsOf: "SELECT * FROM endpoint_stats WHERE endpoint_id = ANY($1::text[])",
  findAttempt: "SELECT * FROM attempts WHERE id = $1 AND app_id = $2",
} as const;
