/**
 * SQLite schema, as numbered append-only migrations. Never edit a released entry: add a new one.
 * Times are integer milliseconds since the epoch; JSON columns hold text.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "core delivery schema",
    sql: `
CREATE TABLE applications (
  id TEXT PRIMARY KEY,
  uid TEXT UNIQUE,
  name TEXT NOT NULL,
  rate_limit INTEGER,
  metadata TEXT NOT NULL DEFAULT '{}',
  delivery_policy TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE endpoints (
  id TEXT PRIMARY KEY,
  app_id TEXT NOT NULL,
  uid TEXT,
  url TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  version INTEGER NOT NULL DEFAULT 1,
  disabled INTEGER NOT NULL DEFAULT 0,
  disabled_reason TEXT,
  filter_types TEXT,
  channels TEXT,
  headers TEXT NOT NULL DEFAULT '{}',
  metadata TEXT NOT NULL DEFAULT '{}',
  rate_limit INTEGER,
  secrets TEXT NOT NULL,
  delivery_policy TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (app_id, uid)
);
CREATE INDEX endpoints_by_app ON endpoints (app_id, id);

CREATE TABLE event_types (
  name TEXT PRIMARY KEY,
  description TEXT NOT NULL,
  archived INTEGER NOT NULL DEFAULT 0,
  deprecated INTEGER NOT NULL DEFAULT 0,
  feature_flags TEXT,
  group_name TEXT,
  schemas TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

-- The payload is stored here once; deliveries point at it.
CREATE TABLE messages (
  id TEXT PRIMARY KEY,
  app_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  event_id TEXT,
  channels TEXT,
  tags TEXT,
  payload BLOB NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX messages_by_event_id ON messages (app_id, event_id) WHERE event_id IS NOT NULL;
CREATE INDEX messages_by_app ON messages (app_id, id);

CREATE TABLE deliveries (
  id TEXT PRIMARY KEY,
  app_id TEXT NOT NULL,
  message_id TEXT NOT NULL,
  endpoint_id TEXT NOT NULL,
  state TEXT NOT NULL,
  origin TEXT NOT NULL,
  attempt_count INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER,
  first_attempt_at INTEGER,
  last_attempt_at INTEGER,
  last_delay_ms INTEGER,
  lease_until INTEGER,
  created_at INTEGER NOT NULL
);
-- Claiming walks only pending rows in due order, so its cost does not grow with history.
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX deliveries_pending_by_endpoint ON deliveries (endpoint_id, next_attempt_at)
  WHERE state = 'pending';
CREATE INDEX deliveries_claimed ON deliveries (lease_until) WHERE state = 'inflight';
CREATE INDEX deliveries_by_message ON deliveries (message_id);
CREATE INDEX deliveries_by_endpoint ON deliveries (endpoint_id);

CREATE TABLE attempts (
  id TEXT PRIMARY KEY,
  delivery_id TEXT NOT NULL,
  app_id TEXT NOT NULL,
  message_id TEXT NOT NULL,
  endpoint_id TEXT NOT NULL,
  at INTEGER NOT NULL,
  trigger TEXT NOT NULL,
  url TEXT NOT NULL,
  status INTEGER,
  error TEXT,
  error_detail TEXT,
  duration_ms INTEGER NOT NULL,
  response_snippet TEXT NOT NULL,
  outcome TEXT NOT NULL
);
CREATE INDEX attempts_by_endpoint ON attempts (endpoint_id, id);
CREATE INDEX attempts_by_message ON attempts (message_id, id);
CREATE INDEX attempts_by_delivery ON attempts (delivery_id, id);

CREATE TABLE dead_letters (
  id TEXT PRIMARY KEY,
  delivery_id TEXT NOT NULL UNIQUE,
  app_id TEXT NOT NULL,
  endpoint_id TEXT NOT NULL,
  message_id TEXT NOT NULL,
  event_id TEXT,
  event_type TEXT NOT NULL,
  failure_class TEXT NOT NULL,
  reason TEXT NOT NULL,
  final_status INTEGER,
  final_error TEXT,
  signature_headers TEXT NOT NULL,
  first_attempt_at INTEGER,
  last_attempt_at INTEGER,
  state TEXT NOT NULL DEFAULT 'open',
  replay_count INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
);
CREATE INDEX dead_letters_by_app ON dead_letters (app_id, id);
CREATE INDEX dead_letters_by_endpoint ON dead_letters (endpoint_id, id);

CREATE TABLE circuits (
  endpoint_id TEXT PRIMARY KEY,
  state TEXT NOT NULL,
  since INTEGER NOT NULL,
  reason TEXT,
  next_probe_at INTEGER,
  reopen_count INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE circuit_transitions (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  endpoint_id TEXT NOT NULL,
  from_state TEXT NOT NULL,
  to_state TEXT NOT NULL,
  at INTEGER NOT NULL,
  reason TEXT NOT NULL
);
CREATE INDEX circuit_transitions_by_endpoint ON circuit_transitions (endpoint_id, seq);

CREATE TABLE endpoint_stats (
  endpoint_id TEXT PRIMARY KEY,
  retry_after_honoured INTEGER NOT NULL DEFAULT 0,
  retry_after_capped INTEGER NOT NULL DEFAULT 0,
  retry_after_ignored INTEGER NOT NULL DEFAULT 0,
  last_success_at INTEGER
);

CREATE TABLE idempotency_keys (
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  state TEXT NOT NULL,
  status INTEGER,
  body TEXT,
  locked_until INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (scope, key)
);
`,
  },
  {
    version: 2,
    name: "dead-letter queue: replays, history, depth cap, replay jobs, retention",
    sql: `
-- A replay is a delivery like any other, linked to the record it replays.
ALTER TABLE deliveries ADD COLUMN dead_letter_id TEXT;
CREATE INDEX deliveries_by_dead_letter ON deliveries (dead_letter_id)
  WHERE dead_letter_id IS NOT NULL;

ALTER TABLE dead_letters ADD COLUMN updated_at INTEGER;
UPDATE dead_letters SET updated_at = created_at;
ALTER TABLE dead_letters ADD COLUMN failed_replays INTEGER NOT NULL DEFAULT 0;
-- Failed replays in a row after which the record is abandoned, as asked when it was last replayed.
ALTER TABLE dead_letters ADD COLUMN abandon_after INTEGER;
CREATE INDEX dead_letters_open ON dead_letters (endpoint_id, failure_class, created_at)
  WHERE state IN ('open', 'replaying');
CREATE INDEX dead_letters_closed ON dead_letters (updated_at)
  WHERE state IN ('resolved', 'abandoned');
CREATE INDEX dead_letters_by_message ON dead_letters (message_id);

-- Who did what to a record, and what came of it.
CREATE TABLE dead_letter_events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  dead_letter_id TEXT NOT NULL,
  at INTEGER NOT NULL,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  result TEXT NOT NULL,
  note TEXT,
  delivery_id TEXT,
  job_id TEXT
);
CREATE INDEX dead_letter_events_by_record ON dead_letter_events (dead_letter_id, seq);
CREATE INDEX dead_letter_events_by_delivery ON dead_letter_events (delivery_id)
  WHERE delivery_id IS NOT NULL;

-- Open and replaying records per endpoint, for the depth cap. Kept by triggers, so every path
-- that changes a record's state (or deletes it) keeps it right, and checking the cap is one read.
CREATE TABLE dead_letter_depth (
  endpoint_id TEXT PRIMARY KEY,
  open INTEGER NOT NULL DEFAULT 0
);
INSERT INTO dead_letter_depth (endpoint_id, open)
  SELECT endpoint_id, count(*) FROM dead_letters WHERE state IN ('open', 'replaying')
  GROUP BY endpoint_id;
CREATE TRIGGER dead_letter_depth_insert AFTER INSERT ON dead_letters
  WHEN NEW.state IN ('open', 'replaying')
BEGIN
  INSERT INTO dead_letter_depth (endpoint_id, open) VALUES (NEW.endpoint_id, 1)
    ON CONFLICT (endpoint_id) DO UPDATE SET open = open + 1;
END;
CREATE TRIGGER dead_letter_depth_delete AFTER DELETE ON dead_letters
  WHEN OLD.state IN ('open', 'replaying')
BEGIN
  UPDATE dead_letter_depth SET open = open - 1 WHERE endpoint_id = OLD.endpoint_id;
END;
CREATE TRIGGER dead_letter_depth_update AFTER UPDATE OF state ON dead_letters
  WHEN (OLD.state IN ('open', 'replaying')) <> (NEW.state IN ('open', 'replaying'))
BEGIN
  INSERT INTO dead_letter_depth (endpoint_id, open)
    VALUES (NEW.endpoint_id, CASE WHEN NEW.state IN ('open', 'replaying') THEN 1 ELSE -1 END)
    ON CONFLICT (endpoint_id) DO UPDATE SET open = open + excluded.open;
END;

-- Dead letters not kept because their endpoint was at its depth cap: the record that says so.
CREATE TABLE dead_letter_overflow (
  id TEXT PRIMARY KEY,
  delivery_id TEXT NOT NULL,
  app_id TEXT NOT NULL,
  endpoint_id TEXT NOT NULL,
  message_id TEXT NOT NULL,
  event_id TEXT,
  event_type TEXT NOT NULL,
  failure_class TEXT NOT NULL,
  reason TEXT NOT NULL,
  at INTEGER NOT NULL
);
CREATE INDEX dead_letter_overflow_by_endpoint ON dead_letter_overflow (endpoint_id, id);
CREATE INDEX dead_letter_overflow_by_app ON dead_letter_overflow (app_id, id);
CREATE INDEX dead_letter_overflow_by_time ON dead_letter_overflow (at);
ALTER TABLE endpoint_stats ADD COLUMN dlq_overflowed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE endpoint_stats ADD COLUMN dlq_last_overflow_at INTEGER;

CREATE TABLE replay_jobs (
  id TEXT PRIMARY KEY,
  task TEXT NOT NULL,
  state TEXT NOT NULL,
  stage TEXT NOT NULL,
  selection TEXT NOT NULL,
  rate_per_second REAL NOT NULL,
  canary_size INTEGER NOT NULL,
  canary_threshold REAL NOT NULL,
  start_at INTEGER NOT NULL,
  created_by TEXT NOT NULL,
  note TEXT,
  reason TEXT,
  total INTEGER,
  queued INTEGER NOT NULL DEFAULT 0,
  succeeded INTEGER NOT NULL DEFAULT 0,
  failed INTEGER NOT NULL DEFAULT 0,
  skipped INTEGER NOT NULL DEFAULT 0,
  withdrawn INTEGER NOT NULL DEFAULT 0,
  lease_until INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER
);
CREATE INDEX replay_jobs_scheduled ON replay_jobs (start_at) WHERE state = 'scheduled';
CREATE INDEX replay_jobs_running ON replay_jobs (lease_until) WHERE state = 'running';
CREATE INDEX replay_jobs_finished ON replay_jobs (finished_at) WHERE finished_at IS NOT NULL;

-- A job's records, each at most once (the primary key), in the order they are replayed.
CREATE TABLE replay_job_items (
  job_id TEXT NOT NULL,
  dead_letter_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  state TEXT NOT NULL,
  prior_state TEXT,
  delivery_id TEXT,
  detail TEXT,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (job_id, dead_letter_id)
);
CREATE INDEX replay_job_items_waiting ON replay_job_items (job_id, seq) WHERE state = 'pending';
CREATE INDEX replay_job_items_queued ON replay_job_items (job_id) WHERE state = 'queued';
CREATE UNIQUE INDEX replay_job_items_by_delivery ON replay_job_items (delivery_id)
  WHERE delivery_id IS NOT NULL;

-- Retention walks these in age order.
CREATE INDEX messages_by_age ON messages (created_at);
CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_at);
`,
  },
  {
    version: 3,
    name: "API tokens",
    sql: `
-- Bearer tokens, kept only as the SHA-256 of the token (hex); the token itself is shown once.
CREATE TABLE api_tokens (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  scope TEXT NOT NULL CHECK (scope IN ('admin', 'app')),
  app_id TEXT,
  hash TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
`,
  },
  {
    version: 5,
    name: "alerts and failure drills",
    sql: `
-- Alerts hookline evaluates itself, kept so a restart does not forget what is firing.
CREATE TABLE alerts (
  id TEXT PRIMARY KEY,
  rule TEXT NOT NULL,
  severity TEXT NOT NULL,
  summary TEXT NOT NULL,
  endpoint_id TEXT,
  value REAL NOT NULL,
  threshold REAL NOT NULL,
  since INTEGER NOT NULL,
  resolved_at INTEGER
);
CREATE INDEX alerts_resolved ON alerts (resolved_at);

-- Failure drills: their result and the timing of each step (report as JSON).
CREATE TABLE drill_runs (
  id TEXT PRIMARY KEY,
  trigger TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  finished_at INTEGER NOT NULL,
  passed INTEGER NOT NULL,
  steps TEXT NOT NULL
);
CREATE INDEX drill_runs_passed ON drill_runs (started_at) WHERE passed = 1;
`,
  },
  {
    // Version numbers are handed out per change, so the ledger may have gaps.
    version: 6,
    name: "API token expiry",
    sql: `
-- A token may stop working at a set time (customer portal links); NULL means never.
ALTER TABLE api_tokens ADD COLUMN expires_at INTEGER;
`,
  },
  {
    // Version 7 was PostgreSQL's alone (its lease index of claimed deliveries).
    version: 8,
    name: "drop the index of attempts by delivery",
    sql: `
-- Its one reader, a dead letter's attempts, goes through attempts_by_message: the record's
-- delivery and its replays share one message. Every attempt paid an insert into it.
DROP INDEX attempts_by_delivery;
`,
  },
  {
    version: 9,
    name: "who evaluates an alert",
    sql: `
-- The worker (or the one process) that evaluates a firing alert and alone writes it; when it
-- leaves, another takes the alert on (see docs/observability.md, "Several processes").
ALTER TABLE alerts ADD COLUMN evaluated_by TEXT;
-- An alert resolved because another alert carries on its condition.
ALTER TABLE alerts ADD COLUMN superseded_by TEXT;
`,
  },
  {
    version: 10,
    name: "the runner holding a replay job",
    sql: `
-- A job's lease names its runner: once another runner takes the job up (the lease ran out while
-- the first was stalled), the first one's updates are refused and it drops the job.
ALTER TABLE replay_jobs ADD COLUMN held_by TEXT;
`,
  },
  {
    version: 11,
    name: "message deliverAt",
    sql: `
-- The delivery time a message's sender asked for, answered back as MessageOut.deliverAt; NULL
-- when it asked for none (its deliveries were due at once).
ALTER TABLE messages ADD COLUMN deliver_at INTEGER;
`,
  },
  {
    version: 12,
    name: "API token feature flags",
    sql: `
-- The feature flags a portal link was made with, as a JSON array: its token sees the event types
-- behind them. NULL: none.
ALTER TABLE api_tokens ADD COLUMN feature_flags TEXT;
`,
  },
  {
    version: 13,
    name: "the request holding an idempotency key",
    sql: `
-- The token of the request that began the key: only that request records its answer or frees
-- it. One that ran past its lock has lost the key to a repeat, whose answer it must not replace.
-- NULL: begun by a hookline from before this column.
ALTER TABLE idempotency_keys ADD COLUMN owner TEXT;
`,
  },
  {
    version: 14,
    name: "API tokens by application and by expiry",
    sql: `
-- Every portal link adds an application's token, kept until it expires (a week by default), so
-- the table grows with the links made. These keep the calls on one application's tokens (its
-- list, expire-all's pages, deleting the application) and retention's pruning of expired ones
-- from reading every token there is.
CREATE INDEX api_tokens_by_app ON api_tokens (app_id, id);
CREATE INDEX api_tokens_by_expiry ON api_tokens (expires_at);
`,
  },
  {
    version: 15,
    name: "dead-letter tombstones by message",
    sql: `
-- Retention keeps a message while a tombstone of it is within the period (it may be resent):
-- asked once per old message it walks, so found by message, not among every tombstone kept.
CREATE INDEX dead_letter_overflow_by_message ON dead_letter_overflow (message_id, at);
`,
  },
  {
    version: 16,
    name: "failed attempts by endpoint",
    sql: `
-- An endpoint's failed attempts, for its "Failed attempts" list: read through its index of every
-- attempt, that list walked all of an endpoint's successes to find a page of failures (an endpoint
-- with 200,000 attempts, nearly all successful, read them all at every refresh of its page). Only
-- failed attempts take an entry, so a healthy endpoint's writes cost nothing more.
CREATE INDEX attempts_failed_by_endpoint ON attempts (endpoint_id, id) WHERE outcome <> 'success';
`,
  },
  {
    version: 17,
    name: "when a circuit opened",
    sql: `
-- When the circuit opened from closed: the start of the run of failures that its reopenings
-- continue, each moving \`since\` on, so that an endpoint's page says since when it has been
-- failing. NULL while closed. A circuit not closed takes its latest opening among its transitions;
-- one whose opening retention pruned stays NULL (not known).
ALTER TABLE circuits ADD COLUMN opened_at INTEGER;
UPDATE circuits SET opened_at = (SELECT t.at FROM circuit_transitions t
    WHERE t.endpoint_id = circuits.endpoint_id AND t.from_state = 'closed' AND t.to_state = 'open'
    ORDER BY t.seq DESC LIMIT 1)
  WHERE state <> 'closed';
`,
  },
  {
    version: 18,
    name: "the wait a retry's Retry-After asked for",
    sql: `
-- The wait the receiver's Retry-After asked for (ms), on the attempt whose answer sent it, when it
-- set the retry's time (honoured, or capped above 4 h); NULL otherwise, and for attempts made
-- before this column. A message's page says so beside the next attempt, which without it was an
-- unexplained gap (2 min instead of the ladder's 5 s).
ALTER TABLE attempts ADD COLUMN retry_after_ms INTEGER;
`,
  },
  {
    version: 19,
    name: "why a Retry-After was ignored",
    sql: `
-- The receiver's Retry-After hookline ignored on the attempt whose answer sent it, when the ladder
-- then set the retry's time: 'too-long <ms asked>' (past 24 h) or 'malformed <value as sent, cut
-- short>' (src/store/ignored-retry-after.ts); NULL otherwise, and for attempts made before this
-- column. Without it, a retry 10 s off after an endpoint asked for 30 h said nothing of why.
ALTER TABLE attempts ADD COLUMN retry_after_ignored TEXT;
`,
  },
];
