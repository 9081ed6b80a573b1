/** The PostgreSQL statements of the dead-letter queue and its replay jobs. */

/** Records, their history, the depth cap and its tombstones, and single replays. */
export const DEAD_LETTERS = {
  insertRecord: `INSERT INTO dead_letters (id, delivery_id, app_id, endpoint_id,
      message_id, event_id, event_type, failure_class, reason, final_status, final_error,
      signature_headers, first_attempt_at, last_attempt_at, state, replay_count, created_at,
      updated_at)
    SELECT $1::text, d.id, d.app_id, d.endpoint_id, d.message_id, m.event_id, m.event_type,
      $3::text, $4::text, $5::integer, $6::text, $7::json, d.first_attempt_at,
      d.last_attempt_at, 'open', 0, $8::bigint, $8::bigint
    FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE d.id = $2`,
  // Through attempts_by_message: a message has few deliveries, and those few attempts.
  lastAttempt: `SELECT * FROM attempts WHERE message_id = $1 AND delivery_id = $2
    ORDER BY at DESC, id DESC LIMIT 1`,
  // The depth row is created if missing and locked, so two batches dead-lettering to the same
  // endpoint at once (two workers) check the cap one after the other.
  ensureDepth: `INSERT INTO dead_letter_depth (endpoint_id, open) VALUES ($1, 0)
    ON CONFLICT (endpoint_id) DO NOTHING`,
  lockDepth: "SELECT open FROM dead_letter_depth WHERE endpoint_id = $1 FOR UPDATE",
  insertOverflow: `INSERT INTO dead_letter_overflow (id, delivery_id, app_id, endpoint_id,
      message_id, event_id, event_type, failure_class, reason, at)
    SELECT $1::text, d.id, d.app_id, d.endpoint_id, d.message_id, m.event_id, m.event_type,
      $3::text, $4::text, $5::bigint
    FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE d.id = $2`,
  countOverflow: `INSERT INTO endpoint_stats AS s (endpoint_id, dlq_overflowed, dlq_last_overflow_at)
    VALUES ($1, 1, $2)
    ON CONFLICT (endpoint_id) DO UPDATE SET dlq_overflowed = s.dlq_overflowed + 1,
      dlq_last_overflow_at = GREATEST(s.dlq_last_overflow_at, excluded.dlq_last_overflow_at)`,
  insertEvent: `INSERT INTO dead_letter_events (dead_letter_id, at, actor, action, result, note,
    delivery_id, job_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
  get: "SELECT * FROM dead_letters WHERE id = $1",
  lock: "SELECT * FROM dead_letters WHERE id = $1 FOR UPDATE",
  byDelivery: "SELECT * FROM dead_letters WHERE delivery_id = $1",
  // Through the records' unique index on delivery_id: a page's deliveries, never the others;
  // the message's tombstones (most have none), whose reasons were said nowhere else; and, through
  // the history's index by delivery, why a replay delivery ended unsent (its record is the
  // replayed delivery's, and only its history says so).
  reasonsOf: `SELECT delivery_id, reason, false AS unsent FROM dead_letters
    WHERE delivery_id = ANY($2::text[])
    UNION ALL SELECT delivery_id, reason, false FROM dead_letter_overflow
    WHERE message_id = $1 AND delivery_id = ANY($2::text[])
    UNION ALL SELECT delivery_id, result, true FROM dead_letter_events
    WHERE delivery_id = ANY($2::text[]) AND action = 'replay_withdrawn'`,
  requestOf: `SELECT actor, job_id FROM dead_letter_events
    WHERE delivery_id = $1 AND action = 'replay_requested' ORDER BY seq LIMIT 1`,
  // The state guard is what makes a replay single: a second request finds it replaying (or
  // waits for the first's commit, then finds it so). A person may replay a resolved record; a
  // bulk job takes open ones only ($4 false), so one a person resolved after the job read it
  // (the guard sees the committed state) is skipped, not replayed.
  startReplay: `UPDATE dead_letters SET state = 'replaying', abandon_after = $2, updated_at = $3
    WHERE id = $1 AND (state = 'open' OR (state = 'resolved' AND $4::boolean)) RETURNING *`,
  circuitOf: "SELECT state, next_probe_at FROM circuits WHERE endpoint_id = $1",
  insertReplayDelivery: `INSERT INTO deliveries (id, app_id, message_id, endpoint_id, state,
      origin, next_attempt_at, created_at, dead_letter_id)
    VALUES ($1, $2, $3, $4, 'pending', 'replay', $5, $6, $7) RETURNING *`,
  finishReplay: `UPDATE dead_letters SET state = $2, replay_count = replay_count + 1,
      failed_replays = $3, last_attempt_at = coalesce($4, last_attempt_at), updated_at = $5
    WHERE id = $1`,
  // The open records of resends' messages, locked before their deliveries move (the order an
  // endpoint's deletion takes them in).
  lockOpenOf: `SELECT id FROM dead_letters WHERE message_id = ANY($1::text[]) AND state = 'open'
    ORDER BY id FOR UPDATE`,
  // A resend delivered the message: its open records for that endpoint have nothing left to do.
  resolveDelivered: `UPDATE dead_letters SET state = 'resolved', updated_at = $3
    WHERE message_id = $1 AND endpoint_id = $2 AND state = 'open' RETURNING id`,
  // A person's resolve starts the count of failed replays again: "in a row" runs from it.
  decide: `UPDATE dead_letters SET state = $2, updated_at = $3,
      failed_replays = CASE WHEN $2 = 'resolved' THEN 0 ELSE failed_replays END
    WHERE id = $1 AND state = ANY($4::text[]) RETURNING *`,
  // Through the message's attempts: the record's delivery and its replays share one message.
  attemptsOf: `SELECT * FROM attempts WHERE message_id = $3 AND (delivery_id = $1
      OR delivery_id IN (SELECT id FROM deliveries WHERE dead_letter_id = $2))
    ORDER BY at, id`,
  historyOf: "SELECT * FROM dead_letter_events WHERE dead_letter_id = $1 ORDER BY seq",
  payloadOf: "SELECT payload FROM messages WHERE id = $1",
  jobItemDone: `UPDATE replay_job_items SET state = $1, detail = $2, updated_at = $3
    WHERE delivery_id = $4 AND state = 'queued' RETURNING job_id`,
  // A result is stamped with its attempt's start, which may come before the job's last change
  // (a cancel while the request was out): updated_at never goes back.
  countJobResult: `UPDATE replay_jobs SET succeeded = succeeded + $1, failed = failed + $2,
    withdrawn = withdrawn + $3, updated_at = greatest(updated_at, $4) WHERE id = $5`,
  // The jobs of the replays among these deliveries, in id order. NO KEY UPDATE is what counting a
  // result takes anyway; taken first, it waits behind whoever holds the job, as they all do.
  lockJobsOf: `SELECT j.id FROM replay_jobs j
    WHERE j.id IN (SELECT i.job_id FROM replay_job_items i
      WHERE i.delivery_id = ANY($1::text[]) AND i.state = 'queued')
    ORDER BY j.id FOR NO KEY UPDATE OF j`,
  // The records these deliveries replay, in id order (read without a lock on the deliveries).
  lockRecordsOf: `SELECT r.id FROM dead_letters r
    WHERE r.id IN (SELECT d.dead_letter_id FROM deliveries d WHERE d.id = ANY($1::text[]))
    ORDER BY r.id FOR UPDATE OF r`,
  // Groups of open records, then one row (no class, nothing open) for each endpoint with nothing
  // open whose tombstones are still kept: resolving its last record must not hide that some dead
  // letters were never kept. Retention removing the tombstones ends that row. Those endpoints
  // are among the few that ever overflowed (endpoint_stats counts it), each asked whether a
  // tombstone is left: reading the tombstones themselves read up to the cap's worth of each.
  summary: `SELECT g.*, s.last_success_at, s.dlq_overflowed, s.dlq_last_overflow_at,
      c.state AS circuit_state, c.since AS circuit_since, c.reason AS circuit_reason,
      c.next_probe_at AS circuit_next_probe_at, c.reopen_count AS circuit_reopen_count,
      c.opened_at AS circuit_opened_at,
      coalesce(dd.open, 0) AS depth
    FROM (SELECT app_id, endpoint_id, failure_class,
        count(*) FILTER (WHERE state = 'open') AS open,
        count(*) FILTER (WHERE state = 'replaying') AS replaying,
        min(created_at) AS oldest_at
      FROM dead_letters WHERE state IN ('open', 'replaying')
        AND ($1::text IS NULL OR app_id = $1)
      GROUP BY app_id, endpoint_id, failure_class
      UNION ALL
      SELECT e.app_id, e.id, NULL::text, 0::bigint, 0::bigint, NULL::bigint
      FROM endpoint_stats o JOIN endpoints e ON e.id = o.endpoint_id
      WHERE o.dlq_overflowed > 0 AND ($1::text IS NULL OR e.app_id = $1)
        AND EXISTS (SELECT 1 FROM dead_letter_overflow t WHERE t.endpoint_id = o.endpoint_id)
        AND NOT EXISTS (SELECT 1 FROM dead_letters d
          WHERE d.endpoint_id = o.endpoint_id AND d.state IN ('open', 'replaying'))) g
    LEFT JOIN endpoint_stats s ON s.endpoint_id = g.endpoint_id
    LEFT JOIN circuits c ON c.endpoint_id = g.endpoint_id
    LEFT JOIN dead_letter_depth dd ON dd.endpoint_id = g.endpoint_id
    ORDER BY g.oldest_at NULLS LAST, g.endpoint_id, g.failure_class`,
} as const;

/** Bulk replay jobs and their items. */
export const REPLAY_JOBS = {
  insert: `INSERT INTO replay_jobs (id, task, state, stage, selection, rate_per_second,
      canary_size, canary_threshold, start_at, created_by, note, created_at, updated_at)
    VALUES ($1, $2, 'scheduled', $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) RETURNING *`,
  get: "SELECT * FROM replay_jobs WHERE id = $1",
  // Jobs are made one at a time per schema: each looks at the others before it is made.
  createLock: "SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))",
  active: `SELECT * FROM replay_jobs WHERE state IN ('scheduled', 'running')
    ORDER BY created_at, id`,
  // The endpoints of a started job's records it has yet to finish with.
  itemEndpoints: `SELECT DISTINCT d.endpoint_id FROM replay_job_items i
      JOIN dead_letters d ON d.id = i.dead_letter_id
    WHERE i.job_id = $1 AND i.state IN ('pending', 'queued') ORDER BY d.endpoint_id`,
  listedEndpoints: `SELECT DISTINCT endpoint_id FROM dead_letters
    WHERE id = ANY($1::text[]) AND state IN ('open', 'replaying') ORDER BY endpoint_id`,
  // A job being taken up elsewhere is skipped, not waited for (see the delivery claim).
  claim: `WITH due AS (
      SELECT id FROM replay_jobs
      WHERE (state = 'scheduled' AND start_at <= $1)
         OR (state = 'running' AND (lease_until IS NULL OR lease_until <= $1))
      ORDER BY start_at
      LIMIT $3
      FOR UPDATE SKIP LOCKED
    )
    UPDATE replay_jobs j SET state = 'running', started_at = coalesce(j.started_at, $1),
      lease_until = $2, held_by = $4, updated_at = $1,
      reason = CASE WHEN j.state = 'scheduled' THEN NULL ELSE j.reason END
    FROM due WHERE j.id = due.id
    RETURNING j.*`,
  release: "UPDATE replay_jobs SET lease_until = NULL, held_by = NULL WHERE state = 'running'",
  nextStart: "SELECT min(start_at) AS at FROM replay_jobs WHERE state = 'scheduled'",
  // Only jobs not told yet: a runner with no room looks again (every 5 s) while it stays full.
  // A job a runner takes up meanwhile is left as it is: waiting for the claim's row lock, the
  // update sees the job running once the claim commits.
  noteWaiting: `WITH noted AS (
      UPDATE replay_jobs SET reason = $2, updated_at = $1
      WHERE state = 'scheduled' AND start_at <= $1 AND reason IS NULL
    )
    SELECT min(start_at) AS at FROM replay_jobs WHERE state = 'scheduled' AND start_at > $1`,
  // Preparing and queueing hold the job's row, so two runners taking one job up at once do each
  // step one after the other, as they would in SQLite.
  lock: "SELECT * FROM replay_jobs WHERE id = $1 FOR UPDATE",
  skipEndpointItems: `UPDATE replay_job_items SET state = 'skipped', detail = $3, updated_at = $4
    WHERE job_id = $1 AND state = 'pending'
    AND dead_letter_id IN (SELECT id FROM dead_letters WHERE endpoint_id = $2)`,
  countSkippedAtStart: "UPDATE replay_jobs SET skipped = skipped + $1, reason = $2 WHERE id = $3",
  setTotal: `UPDATE replay_jobs SET total = $1, updated_at = $2 WHERE id = $3 AND total IS NULL`,
  // Listed ids keep the order given; a repeated id is one item (its first place).
  insertListed: `INSERT INTO replay_job_items (job_id, dead_letter_id, seq, state, updated_at)
    SELECT $1::text, v.id, v.n, 'pending', $2::bigint
    FROM unnest($3::text[]) WITH ORDINALITY AS v(id, n) ORDER BY v.n
    ON CONFLICT (job_id, dead_letter_id) DO NOTHING`,
  countItems: "SELECT count(*) AS n FROM replay_job_items WHERE job_id = $1",
  endpointDisabled: "SELECT disabled FROM endpoints WHERE id = $1",
  waiting: `SELECT dead_letter_id FROM replay_job_items WHERE job_id = $1 AND state = 'pending'
    ORDER BY seq LIMIT $2`,
  countWaiting: `SELECT count(*) AS n FROM replay_job_items
    WHERE job_id = $1 AND state = 'pending'`,
  markQueued: `UPDATE replay_job_items SET state = 'queued', prior_state = $3, delivery_id = $4,
      updated_at = $5
    WHERE job_id = $1 AND dead_letter_id = $2 AND state = 'pending'`,
  markSkipped: `UPDATE replay_job_items SET state = 'skipped', detail = $3, updated_at = $4
    WHERE job_id = $1 AND dead_letter_id = $2 AND state = 'pending'`,
  countQueued: `UPDATE replay_jobs SET queued = queued + $1, skipped = skipped + $2,
    updated_at = $3 WHERE id = $4`,
  update: `UPDATE replay_jobs SET lease_until = $3, updated_at = $2,
      stage = coalesce($4::text, stage),
      reason = CASE WHEN $6::boolean THEN $7::text ELSE reason END,
      state = coalesce($5::text, state),
      finished_at = CASE WHEN $5::text IS NULL THEN finished_at ELSE $2 END
    WHERE id = $1 AND state = 'running' AND held_by = $8 RETURNING *`,
  cancel: `UPDATE replay_jobs SET state = 'cancelled', reason = $2, lease_until = NULL,
      finished_at = $3, updated_at = $3
    WHERE id = $1 AND state IN ('scheduled', 'running')`,
  queuedItems: `SELECT i.dead_letter_id, i.delivery_id, i.prior_state, d.app_id, d.endpoint_id
    FROM replay_job_items i JOIN dead_letters d ON d.id = i.dead_letter_id
    WHERE i.job_id = $1 AND i.state = 'queued' ORDER BY i.seq`,
  endpointsOut: `SELECT d.endpoint_id, count(*) AS n FROM replay_job_items i
      JOIN dead_letters d ON d.id = i.dead_letter_id
    WHERE i.job_id = $1 AND i.state = 'queued'
    GROUP BY d.endpoint_id ORDER BY d.endpoint_id`,
  skips: `SELECT detail, count(*) AS n FROM replay_job_items
      WHERE job_id = $1 AND state = 'skipped' GROUP BY detail ORDER BY n DESC, detail`,
  withdrawDelivery: "DELETE FROM deliveries WHERE id = $1 AND state = 'pending'",
  markWithdrawn: `UPDATE replay_job_items SET state = 'withdrawn', detail = $3, updated_at = $4
    WHERE job_id = $1 AND dead_letter_id = $2`,
  restoreRecord: `UPDATE dead_letters SET state = $2, updated_at = $3
    WHERE id = $1 AND state = 'replaying'`,
  countWithdrawn: "UPDATE replay_jobs SET withdrawn = withdrawn + $1 WHERE id = $2",
} as const;
