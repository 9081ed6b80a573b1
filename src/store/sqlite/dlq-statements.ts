/** The SQLite statements of the dead-letter queue and its replay jobs, prepared once. */
import type { Database as Db, Statement } from "better-sqlite3";

/** The prepared statements of records and single replays. */
export type DeadLetterStatements = ReturnType<typeof prepareDeadLetters>;
/** The prepared statements of replay jobs. */
export type ReplayJobStatements = ReturnType<typeof prepareReplayJobs>;

/**
 * Records, their history, the depth cap and its tombstones, and single replays; `keepAnswer`
 * keeps a keyed replay's answer on its key (the statement that keeps every other answer).
 */
export function prepareDeadLetters(db: Db, keepAnswer: Statement) {
  const p = (sql: string): Statement => db.prepare(sql);
  return {
    keepAnswer,
    insertRecord: p(`INSERT INTO dead_letters (id, delivery_id, app_id, endpoint_id,
      message_id, event_id, event_type, failure_class, reason, final_status, final_error,
      signature_headers, first_attempt_at, last_attempt_at, state, replay_count, created_at,
      updated_at)
      SELECT @id, d.id, d.app_id, d.endpoint_id, d.message_id, m.event_id, m.event_type, @cls,
        @reason, @status, @error, @headers, d.first_attempt_at, d.last_attempt_at, 'open', 0, @at,
        @at
      FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE d.id = @delivery`),
    // Through attempts_by_message: a message has few deliveries, and those few attempts.
    lastAttempt: p(`SELECT * FROM attempts WHERE message_id = ? AND delivery_id = ?
      ORDER BY at DESC, id DESC LIMIT 1`),
    depthOf: p("SELECT open FROM dead_letter_depth WHERE endpoint_id = ?"),
    insertOverflow: p(`INSERT INTO dead_letter_overflow (id, delivery_id, app_id, endpoint_id,
      message_id, event_id, event_type, failure_class, reason, at)
      SELECT @id, d.id, d.app_id, d.endpoint_id, d.message_id, m.event_id, m.event_type, @cls,
        @reason, @at
      FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE d.id = @delivery`),
    countOverflow: p(`INSERT INTO endpoint_stats (endpoint_id, dlq_overflowed, dlq_last_overflow_at)
      VALUES (?, 1, ?)
      ON CONFLICT (endpoint_id) DO UPDATE SET dlq_overflowed = dlq_overflowed + 1,
        dlq_last_overflow_at = max(coalesce(dlq_last_overflow_at, 0), excluded.dlq_last_overflow_at)`),
    insertEvent: p(`INSERT INTO dead_letter_events (dead_letter_id, at, actor, action, result, note,
      delivery_id, job_id) VALUES (@record, @at, @actor, @action, @result, @note, @delivery, @job)`),
    get: p("SELECT * FROM dead_letters WHERE id = ?"),
    byDelivery: p("SELECT * FROM dead_letters WHERE delivery_id = ?"),
    // Through the records' unique index on delivery_id: a page's deliveries, never the others;
    // the message's tombstones (most have none), whose reasons were said nowhere else; and,
    // through the history's index by delivery, why a replay delivery ended unsent (its record is
    // the replayed delivery's, and only its history says so).
    reasonsOf: p(`SELECT delivery_id, reason, 0 AS unsent FROM dead_letters
      WHERE delivery_id IN (SELECT value FROM json_each(@deliveries))
      UNION ALL SELECT delivery_id, reason, 0 FROM dead_letter_overflow
      WHERE message_id = @message AND delivery_id IN (SELECT value FROM json_each(@deliveries))
      UNION ALL SELECT delivery_id, result, 1 FROM dead_letter_events
      WHERE delivery_id IN (SELECT value FROM json_each(@deliveries))
        AND action = 'replay_withdrawn'`),
    requestOf: p(`SELECT actor, job_id FROM dead_letter_events
      WHERE delivery_id = ? AND action = 'replay_requested' ORDER BY seq LIMIT 1`),
    // The state guard is what makes a replay single: a second request finds it replaying. A
    // person may replay a resolved record; a bulk job takes open ones only (@single is 0).
    startReplay: p(`UPDATE dead_letters SET state = 'replaying', abandon_after = @abandonAfter,
      updated_at = @now
      WHERE id = @id AND (state = 'open' OR (state = 'resolved' AND @single = 1))`),
    circuitOf: p("SELECT state, next_probe_at FROM circuits WHERE endpoint_id = ?"),
    insertReplayDelivery: p(`INSERT INTO deliveries (id, app_id, message_id, endpoint_id, state,
      origin, next_attempt_at, created_at, dead_letter_id)
      VALUES (@id, @app, @message, @endpoint, 'pending', 'replay', @due, @now, @record)`),
    delivery: p("SELECT * FROM deliveries WHERE id = ?"),
    finishReplay: p(`UPDATE dead_letters SET state = @state, replay_count = replay_count + 1,
      failed_replays = @failed, last_attempt_at = coalesce(@at, last_attempt_at),
      updated_at = @now WHERE id = @id`),
    // A resend delivered the message: its open records for that endpoint have nothing left to do.
    resolveDelivered: p(`UPDATE dead_letters SET state = 'resolved', updated_at = @now
      WHERE message_id = @message AND endpoint_id = @endpoint AND state = 'open'
      RETURNING id`),
    // A person's resolve starts the count of failed replays again: "in a row" runs from it.
    decide: p(`UPDATE dead_letters SET state = @to, updated_at = @now,
        failed_replays = CASE WHEN @to = 'resolved' THEN 0 ELSE failed_replays END
      WHERE id = @id AND state IN (SELECT value FROM json_each(@from))`),
    // Through the message's attempts: the record's delivery and its replays share one message.
    attemptsOf: p(`SELECT * FROM attempts WHERE message_id = @message AND (delivery_id = @delivery
      OR delivery_id IN (SELECT id FROM deliveries WHERE dead_letter_id = @id))
      ORDER BY at, id`),
    historyOf: p("SELECT * FROM dead_letter_events WHERE dead_letter_id = ? ORDER BY seq"),
    payloadOf: p("SELECT payload FROM messages WHERE id = ?"),
    jobItemDone: p(`UPDATE replay_job_items SET state = @state, detail = @detail,
      updated_at = @now WHERE delivery_id = @delivery AND state = 'queued' RETURNING job_id`),
    // A result is stamped with its attempt's start, which may come before the job's last change
    // (a cancel while the request was out): updated_at never goes back.
    countJobResult: p(`UPDATE replay_jobs SET succeeded = succeeded + @ok,
      failed = failed + @failed, withdrawn = withdrawn + @withdrawn,
      updated_at = max(updated_at, @now)
      WHERE id = @job`),
    // Groups of open records, then one row (no class, nothing open) for each endpoint with
    // nothing open whose tombstones are still kept: resolving its last record must not hide that
    // some dead letters were never kept. Retention removing the tombstones ends that row. Those
    // endpoints are among the few that ever overflowed (endpoint_stats counts it), each asked
    // whether a tombstone is left: reading the tombstones themselves read up to the cap's worth
    // of each endpoint.
    summary: p(`SELECT g.*, s.last_success_at, s.dlq_overflowed, s.dlq_last_overflow_at,
        c.state AS circuit_state, c.since AS circuit_since, c.reason AS circuit_reason,
        c.next_probe_at AS circuit_next_probe_at, c.reopen_count AS circuit_reopen_count,
        c.opened_at AS circuit_opened_at,
        coalesce(dd.open, 0) AS depth
      FROM (SELECT app_id, endpoint_id, failure_class,
          sum(state = 'open') AS open, sum(state = 'replaying') AS replaying,
          min(created_at) AS oldest_at
        FROM dead_letters WHERE state IN ('open', 'replaying')
          AND (@app IS NULL OR app_id = @app)
        GROUP BY endpoint_id, failure_class
        UNION ALL
        SELECT e.app_id, e.id, NULL, 0, 0, NULL
        FROM endpoint_stats o JOIN endpoints e ON e.id = o.endpoint_id
        WHERE o.dlq_overflowed > 0 AND (@app IS NULL OR e.app_id = @app)
          AND EXISTS (SELECT 1 FROM dead_letter_overflow t WHERE t.endpoint_id = o.endpoint_id)
          AND NOT EXISTS (SELECT 1 FROM dead_letters d
            WHERE d.endpoint_id = o.endpoint_id AND d.state IN ('open', 'replaying'))) g
      LEFT JOIN endpoint_stats s ON s.endpoint_id = g.endpoint_id
      LEFT JOIN circuits c ON c.endpoint_id = g.endpoint_id
      LEFT JOIN dead_letter_depth dd ON dd.endpoint_id = g.endpoint_id
      ORDER BY g.oldest_at IS NULL, g.oldest_at, g.endpoint_id, g.failure_class`),
  };
}

/** Bulk replay jobs and their items. */
export function prepareReplayJobs(db: Db) {
  const p = (sql: string): Statement => db.prepare(sql);
  return {
    insert: p(`INSERT INTO replay_jobs (id, task, state, stage, selection, rate_per_second,
      canary_size, canary_threshold, start_at, created_by, note, created_at, updated_at)
      VALUES (@id, @task, 'scheduled', @stage, @selection, @rate, @canarySize, @canaryThreshold,
        @startAt, @createdBy, @note, @now, @now)`),
    get: p("SELECT * FROM replay_jobs WHERE id = ?"),
    active: p(`SELECT * FROM replay_jobs WHERE state IN ('scheduled', 'running')
      ORDER BY created_at, id`),
    // The endpoints of a started job's records it has yet to finish with.
    itemEndpoints: p(`SELECT DISTINCT d.endpoint_id FROM replay_job_items i
      JOIN dead_letters d ON d.id = i.dead_letter_id
      WHERE i.job_id = ? AND i.state IN ('pending', 'queued') ORDER BY d.endpoint_id`),
    listedEndpoints: p(`SELECT DISTINCT endpoint_id FROM dead_letters
      WHERE id IN (SELECT value FROM json_each(?)) AND state IN ('open', 'replaying')
      ORDER BY endpoint_id`),
    // A scheduled job leaves behind why it waited to start (see noteWaiting).
    claim: p(`UPDATE replay_jobs SET state = 'running', started_at = coalesce(started_at, @now),
        lease_until = @lease, held_by = @runner, updated_at = @now,
        reason = CASE WHEN state = 'scheduled' THEN NULL ELSE reason END
      WHERE id IN (SELECT id FROM replay_jobs
        WHERE (state = 'scheduled' AND start_at <= @now)
           OR (state = 'running' AND (lease_until IS NULL OR lease_until <= @now))
        ORDER BY start_at LIMIT @limit)
        AND state IN ('scheduled', 'running')
      RETURNING *`),
    release: p("UPDATE replay_jobs SET lease_until = NULL, held_by = NULL WHERE state = 'running'"),
    nextStart: p("SELECT min(start_at) AS at FROM replay_jobs WHERE state = 'scheduled'"),
    // Only jobs not told yet: a runner with no room looks again and again while it stays full.
    noteWaiting: p(`UPDATE replay_jobs SET reason = @reason, updated_at = @now
      WHERE state = 'scheduled' AND start_at <= @now AND reason IS NULL`),
    nextStartAfter: p(`SELECT min(start_at) AS at FROM replay_jobs
      WHERE state = 'scheduled' AND start_at > ?`),
    skipEndpointItems: p(`UPDATE replay_job_items SET state = 'skipped', detail = @detail,
      updated_at = @now WHERE job_id = @job AND state = 'pending'
      AND dead_letter_id IN (SELECT id FROM dead_letters WHERE endpoint_id = @endpointId)`),
    countSkippedAtStart: p(`UPDATE replay_jobs SET skipped = skipped + @skipped, reason = @reason
      WHERE id = @jobId`),
    setTotal: p("UPDATE replay_jobs SET total = ?, updated_at = ? WHERE id = ? AND total IS NULL"),
    // Listed ids keep the order given; a repeated id is one item.
    insertListed: p(`INSERT OR IGNORE INTO replay_job_items
        (job_id, dead_letter_id, seq, state, updated_at)
      SELECT @job, value, key + 1, 'pending', @now FROM json_each(@ids)`),
    countItems: p("SELECT count(*) AS n FROM replay_job_items WHERE job_id = ?"),
    endpointDisabled: p("SELECT disabled FROM endpoints WHERE id = ?"),
    waiting: p(`SELECT dead_letter_id FROM replay_job_items WHERE job_id = ? AND state = 'pending'
      ORDER BY seq LIMIT ?`),
    countWaiting: p(`SELECT count(*) AS n FROM replay_job_items
      WHERE job_id = ? AND state = 'pending'`),
    markQueued: p(`UPDATE replay_job_items SET state = 'queued', prior_state = @prior,
      delivery_id = @delivery, updated_at = @now
      WHERE job_id = @job AND dead_letter_id = @record AND state = 'pending'`),
    markSkipped: p(`UPDATE replay_job_items SET state = 'skipped', detail = @detail,
      updated_at = @now WHERE job_id = @job AND dead_letter_id = @record AND state = 'pending'`),
    countQueued: p(`UPDATE replay_jobs SET queued = queued + @queued, skipped = skipped + @skipped,
      updated_at = @now WHERE id = @job`),
    update: p(`UPDATE replay_jobs SET lease_until = @lease, updated_at = @now,
        stage = coalesce(@stage, stage), reason = CASE WHEN @setReason THEN @reason ELSE reason END,
        state = coalesce(@state, state),
        finished_at = CASE WHEN @state IS NULL THEN finished_at ELSE @now END
      WHERE id = @id AND state = 'running' AND held_by = @runner RETURNING *`),
    cancel: p(`UPDATE replay_jobs SET state = 'cancelled', reason = @reason, lease_until = NULL,
        finished_at = @now, updated_at = @now
      WHERE id = @id AND state IN ('scheduled', 'running')`),
    // In the job's order, as PostgreSQL reads them: withdrawn replays are announced so on both.
    queuedItems: p(`SELECT i.dead_letter_id, i.delivery_id, i.prior_state, d.app_id, d.endpoint_id
      FROM replay_job_items i JOIN dead_letters d ON d.id = i.dead_letter_id
      WHERE i.job_id = ? AND i.state = 'queued' ORDER BY i.seq`),
    endpointsOut: p(`SELECT d.endpoint_id, count(*) AS n FROM replay_job_items i
      JOIN dead_letters d ON d.id = i.dead_letter_id
      WHERE i.job_id = ? AND i.state = 'queued'
      GROUP BY d.endpoint_id ORDER BY d.endpoint_id`),
    skips: p(`SELECT detail, count(*) AS n FROM replay_job_items
      WHERE job_id = ? AND state = 'skipped' GROUP BY detail ORDER BY n DESC, detail`),
    withdrawDelivery: p("DELETE FROM deliveries WHERE id = ? AND state = 'pending'"),
    markWithdrawn: p(`UPDATE replay_job_items SET state = 'withdrawn', detail = @detail,
      updated_at = @now WHERE job_id = @job AND dead_letter_id = @record`),
    restoreRecord: p(`UPDATE dead_letters SET state = @state, updated_at = @now
      WHERE id = @id AND state = 'replaying'`),
    countWithdrawn: p("UPDATE replay_jobs SET withdrawn = withdrawn + ? WHERE id = ?"),
  };
}
