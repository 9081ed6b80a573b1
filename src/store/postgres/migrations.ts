/**
 * PostgreSQL schema, as numbered append-only migrations mirroring the SQLite ones (same versions,
 * tables and columns). Never edit a released entry: add a new one.
 *
 * Times are BIGINT milliseconds since the epoch and payloads BYTEA, so records read back exactly as
 * from SQLite. JSON columns are `json`, not `jsonb`: `json` keeps the text as written (key order,
 * `\u0000` escapes) and is still checked to be JSON. Identifiers and names are COLLATE "C": they
 * sort byte-wise as in SQLite whatever the database's locale (ids sort by time), and columns
 * compared with each other never disagree on a collation.
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
  id TEXT COLLATE "C" PRIMARY KEY,
  uid TEXT COLLATE "C" UNIQUE,
  name TEXT NOT NULL,
  rate_limit INTEGER,
  metadata JSON NOT NULL DEFAULT '{}',
  delivery_policy JSON,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE endpoints (
  id TEXT COLLATE "C" PRIMARY KEY,
  app_id TEXT COLLATE "C" NOT NULL,
  uid TEXT COLLATE "C",
  url TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  version INTEGER NOT NULL DEFAULT 1,
  disabled BOOLEAN NOT NULL DEFAULT false,
  disabled_reason TEXT,
  filter_types JSON,
  channels JSON,
  headers JSON NOT NULL DEFAULT '{}',
  metadata JSON NOT NULL DEFAULT '{}',
  rate_limit INTEGER,
  secrets JSON NOT NULL,
  delivery_policy JSON,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (app_id, uid)
);
CREATE INDEX endpoints_by_app ON endpoints (app_id, id);

CREATE TABLE event_types (
  name TEXT COLLATE "C" PRIMARY KEY,
  description TEXT NOT NULL,
  archived BOOLEAN NOT NULL DEFAULT false,
  deprecated BOOLEAN NOT NULL DEFAULT false,
  feature_flags JSON,
  group_name TEXT,
  schemas JSON,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);

-- The payload is stored here once; deliveries point at it.
CREATE TABLE messages (
  id TEXT COLLATE "C" PRIMARY KEY,
  app_id TEXT COLLATE "C" NOT NULL,
  event_type TEXT COLLATE "C" NOT NULL,
  event_id TEXT COLLATE "C",
  channels JSON,
  tags JSON,
  payload BYTEA NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX messages_by_event_id ON messages (app_id, event_id) WHERE event_id IS NOT NULL;
CREATE INDEX messages_by_app ON messages (app_id, id);

CREATE TABLE deliveries (
  id TEXT COLLATE "C" PRIMARY KEY,
  app_id TEXT COLLATE "C" NOT NULL,
  message_id TEXT COLLATE "C" NOT NULL,
  endpoint_id TEXT COLLATE "C" NOT NULL,
  state TEXT NOT NULL,
  origin TEXT NOT NULL,
  attempt_count INTEGER NOT NULL DEFAULT 0,
  next_attempt_at BIGINT,
  first_attempt_at BIGINT,
  last_attempt_at BIGINT,
  last_delay_ms BIGINT,
  lease_until BIGINT,
  created_at BIGINT NOT NULL
);
-- Claiming walks only pending rows in due order, so its cost does not grow with history.
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX deliveries_pending_by_endpoint ON deliveries (endpoint_id, next_attempt_at)
  WHERE state = 'pending';
-- Claims whose lease ran out (a worker died), for taking them back.
CREATE INDEX deliveries_claimed ON deliveries (lease_until) WHERE state = 'inflight';
CREATE INDEX deliveries_by_message ON deliveries (message_id);
CREATE INDEX deliveries_by_endpoint ON deliveries (endpoint_id);

CREATE TABLE attempts (
  id TEXT COLLATE "C" PRIMARY KEY,
  delivery_id TEXT COLLATE "C" NOT NULL,
  app_id TEXT COLLATE "C" NOT NULL,
  message_id TEXT COLLATE "C" NOT NULL,
  endpoint_id TEXT COLLATE "C" NOT NULL,
  at BIGINT NOT NULL,
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
  id TEXT COLLATE "C" PRIMARY KEY,
  delivery_id TEXT COLLATE "C" NOT NULL UNIQUE,
  app_id TEXT COLLATE "C" NOT NULL,
  endpoint_id TEXT COLLATE "C" NOT NULL,
  message_id TEXT COLLATE "C" NOT NULL,
  event_id TEXT COLLATE "C",
  event_type TEXT COLLATE "C" NOT NULL,
  failure_class TEXT NOT NULL,
  reason TEXT NOT NULL,
  final_status INTEGER,
  final_error TEXT,
  signature_headers JSON NOT NULL,
  first_attempt_at BIGINT,
  last_attempt_at BIGINT,
  state TEXT NOT NULL DEFAULT 'open',
  replay_count INTEGER NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL
);
CREATE INDEX dead_letters_by_app ON dead_letters (app_id, id);
CREATE INDEX dead_letters_by_endpoint ON dead_letters (endpoint_id, id);

CREATE TABLE circuits (
  endpoint_id TEXT COLLATE "C" PRIMARY KEY,
  state TEXT NOT NULL,
  since BIGINT NOT NULL,
  reason TEXT,
  next_probe_at BIGINT,
  reopen_count INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE circuit_transitions (
  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  endpoint_id TEXT COLLATE "C" NOT NULL,
  from_state TEXT NOT NULL,
  to_state TEXT NOT NULL,
  at BIGINT NOT NULL,
  reason TEXT NOT NULL
);
CREATE INDEX circuit_transitions_by_endpoint ON circuit_transitions (endpoint_id, seq);

CREATE TABLE endpoint_stats (
  endpoint_id TEXT COLLATE "C" PRIMARY KEY,
  retry_after_honoured BIGINT NOT NULL DEFAULT 0,
  retry_after_capped BIGINT NOT NULL DEFAULT 0,
  retry_after_ignored BIGINT NOT NULL DEFAULT 0,
  last_success_at BIGINT
);

CREATE TABLE idempotency_keys (
  scope TEXT COLLATE "C" NOT NULL,
  key TEXT COLLATE "C" NOT NULL,
  fingerprint TEXT NOT NULL,
  state TEXT NOT NULL,
  status INTEGER,
  body TEXT,
  locked_until BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (scope, key)
);
`,
  },
  {
    version: 2,
    name: "dead-letter queue: replays, history, depth cap, replay jobs, retention",
    sql: `
-- A replay is a delivery like any other, linked to the record it replays.
ALTER TABLE deliveries ADD COLUMN dead_letter_id TEXT COLLATE "C";
CREATE INDEX deliveries_by_dead_letter ON deliveries (dead_letter_id)
  WHERE dead_letter_id IS NOT NULL;

ALTER TABLE dead_letters ADD COLUMN updated_at BIGINT;
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
  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  dead_letter_id TEXT COLLATE "C" NOT NULL,
  at BIGINT NOT NULL,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  result TEXT NOT NULL,
  note TEXT,
  delivery_id TEXT COLLATE "C",
  job_id TEXT COLLATE "C"
);
CREATE INDEX dead_letter_events_by_record ON dead_letter_events (dead_letter_id, seq);
CREATE INDEX dead_letter_events_by_delivery ON dead_letter_events (delivery_id)
  WHERE delivery_id IS NOT NULL;

-- Open and replaying records per endpoint, for the depth cap. Kept by triggers, so every path
-- that changes a record's state (or deletes it) keeps it right, and checking the cap is one read.
CREATE TABLE dead_letter_depth (
  endpoint_id TEXT COLLATE "C" PRIMARY KEY,
  open BIGINT NOT NULL DEFAULT 0
);
INSERT INTO dead_letter_depth (endpoint_id, open)
  SELECT endpoint_id, count(*) FROM dead_letters WHERE state IN ('open', 'replaying')
  GROUP BY endpoint_id;

CREATE FUNCTION dead_letter_depth_keep() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  was boolean := TG_OP <> 'INSERT' AND OLD.state IN ('open', 'replaying');
  now_open boolean := TG_OP <> 'DELETE' AND NEW.state IN ('open', 'replaying');
BEGIN
  IF was AND NOT now_open THEN
    UPDATE dead_letter_depth SET open = open - 1 WHERE endpoint_id = OLD.endpoint_id;
  ELSIF now_open AND NOT was THEN
    INSERT INTO dead_letter_depth AS d (endpoint_id, open) VALUES (NEW.endpoint_id, 1)
      ON CONFLICT (endpoint_id) DO UPDATE SET open = d.open + 1;
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER dead_letter_depth_insert AFTER INSERT ON dead_letters
  FOR EACH ROW EXECUTE FUNCTION dead_letter_depth_keep();
CREATE TRIGGER dead_letter_depth_delete AFTER DELETE ON dead_letters
  FOR EACH ROW EXECUTE FUNCTION dead_letter_depth_keep();
CREATE TRIGGER dead_letter_depth_update AFTER UPDATE OF state ON dead_letters
  FOR EACH ROW EXECUTE FUNCTION dead_letter_depth_keep();

-- Dead letters not kept because their endpoint was at its depth cap: the record that says so.
CREATE TABLE dead_letter_overflow (
  id TEXT COLLATE "C" PRIMARY KEY,
  delivery_id TEXT COLLATE "C" NOT NULL,
  app_id TEXT COLLATE "C" NOT NULL,
  endpoint_id TEXT COLLATE "C" NOT NULL,
  message_id TEXT COLLATE "C" NOT NULL,
  event_id TEXT COLLATE "C",
  event_type TEXT COLLATE "C" NOT NULL,
  failure_class TEXT NOT NULL,
  reason TEXT NOT NULL,
  at BIGINT NOT NULL
);
CREATE INDEX dead_letter_overflow_by_endpoint ON dead_letter_overflow (endpoint_id, id);
CREATE INDEX dead_letter_overflow_by_app ON dead_letter_overflow (app_id, id);
CREATE INDEX dead_letter_overflow_by_time ON dead_letter_overflow (at);
ALTER TABLE endpoint_stats ADD COLUMN dlq_overflowed BIGINT NOT NULL DEFAULT 0;
ALTER TABLE endpoint_stats ADD COLUMN dlq_last_overflow_at BIGINT;

CREATE TABLE replay_jobs (
  id TEXT COLLATE "C" PRIMARY KEY,
  task TEXT NOT NULL,
  state TEXT NOT NULL,
  stage TEXT NOT NULL,
  selection JSON NOT NULL,
  rate_per_second DOUBLE PRECISION NOT NULL,
  canary_size INTEGER NOT NULL,
  canary_threshold DOUBLE PRECISION NOT NULL,
  start_at BIGINT NOT NULL,
  created_by TEXT NOT NULL,
  note TEXT,
  reason TEXT,
  total INTEGER,
  queued INTEGER NOT NULL DEFAULT 0,
  succeeded INTEGER NOT NULL DEFAULT 0,
  failed INTEGER NOT NULL DEFAULT 0,
  skipped INTEGER NOT NULL DEFAULT 0,
  withdrawn INTEGER NOT NULL DEFAULT 0,
  lease_until BIGINT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  started_at BIGINT,
  finished_at BIGINT
);
CREATE INDEX replay_jobs_scheduled ON replay_jobs (start_at) WHERE state = 'scheduled';
CREATE INDEX replay_jobs_running ON replay_jobs (lease_until) WHERE state = 'running';
CREATE INDEX replay_jobs_finished ON replay_jobs (finished_at) WHERE finished_at IS NOT NULL;

-- A job's records, each at most once (the primary key), in the order they are replayed.
CREATE TABLE replay_job_items (
  job_id TEXT COLLATE "C" NOT NULL,
  dead_letter_id TEXT COLLATE "C" NOT NULL,
  seq INTEGER NOT NULL,
  state TEXT NOT NULL,
  prior_state TEXT,
  delivery_id TEXT COLLATE "C",
  detail TEXT,
  updated_at BIGINT NOT NULL,
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
  id TEXT COLLATE "C" PRIMARY KEY,
  name TEXT NOT NULL,
  scope TEXT NOT NULL CHECK (scope IN ('admin', 'app')),
  app_id TEXT COLLATE "C",
  hash TEXT COLLATE "C" NOT NULL UNIQUE,
  created_at BIGINT NOT NULL,
  revoked_at BIGINT
);
`,
  },
  {
    version: 4,
    name: "worker processes and endpoint ownership",
    sql: `
-- Each worker process sharing this database, with the time it last said it was alive. A worker
-- whose heartbeat is older than the dead-after time is reaped by any other.
CREATE TABLE workers (
  id TEXT COLLATE "C" PRIMARY KEY,
  role TEXT NOT NULL,
  host TEXT NOT NULL,
  started_at BIGINT NOT NULL,
  heartbeat_at BIGINT NOT NULL
);

-- Which worker delivers to an endpoint right now. Only the owner sends to it, so the endpoint's
-- concurrency limit, circuit breaker and adaptive limit live in one process at a time.
CREATE TABLE endpoint_owners (
  endpoint_id TEXT COLLATE "C" PRIMARY KEY,
  worker_id TEXT COLLATE "C" NOT NULL,
  since BIGINT NOT NULL
);
CREATE INDEX endpoint_owners_by_worker ON endpoint_owners (worker_id);

-- The worker holding a claimed delivery, so a dead worker's claims go back to pending.
ALTER TABLE deliveries ADD COLUMN claimed_by TEXT COLLATE "C";
CREATE INDEX deliveries_claimed_by ON deliveries (claimed_by) WHERE state = 'inflight';
`,
  },
  {
    version: 5,
    name: "alerts and failure drills",
    sql: `
-- Alerts hookline evaluates itself, kept so a restart does not forget what is firing.
CREATE TABLE alerts (
  id TEXT COLLATE "C" PRIMARY KEY,
  rule TEXT NOT NULL,
  severity TEXT NOT NULL,
  summary TEXT NOT NULL,
  endpoint_id TEXT COLLATE "C",
  value DOUBLE PRECISION NOT NULL,
  threshold DOUBLE PRECISION NOT NULL,
  since BIGINT NOT NULL,
  resolved_at BIGINT
);
CREATE INDEX alerts_resolved ON alerts (resolved_at);

-- Failure drills: their result and the timing of each step (report as JSON).
CREATE TABLE drill_runs (
  id TEXT COLLATE "C" PRIMARY KEY,
  trigger TEXT NOT NULL,
  started_at BIGINT NOT NULL,
  finished_at BIGINT NOT NULL,
  passed BOOLEAN NOT NULL,
  steps JSON NOT NULL
);
CREATE INDEX drill_runs_passed ON drill_runs (started_at) WHERE passed;
`,
  },
  {
    // Version numbers are handed out per change, so the ledger may have gaps.
    version: 6,
    name: "API token expiry",
    sql: `
-- A token may stop working at a set time (customer portal links); NULL means never.
ALTER TABLE api_tokens ADD COLUMN expires_at BIGINT;
`,
  },
  {
    version: 7,
    name: "drop the lease index of claimed deliveries",
    sql: `
-- Claims that outlive their worker are found by claimed_by (version 4), and every query of
-- claimed rows by state alone can use that index too; this one was only written, on every claim.
DROP INDEX deliveries_claimed;
`,
  },
  {
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
ALTER TABLE alerts ADD COLUMN evaluated_by TEXT COLLATE "C";
-- An alert resolved because another alert carries on its condition.
ALTER TABLE alerts ADD COLUMN superseded_by TEXT COLLATE "C";
`,
  },
  {
    version: 10,
    name: "the runner holding a replay job",
    sql: `
-- A job's lease names its runner: once another runner takes the job up (the lease ran out while
-- the first was stalled), the first one's updates are refused and it drops the job.
ALTER TABLE replay_jobs ADD COLUMN held_by TEXT COLLATE "C";
`,
  },
  {
    version: 11,
    name: "message deliverAt",
    sql: `
-- The delivery time a message's sender asked for, answered back as MessageOut.deliverAt; NULL
-- when it asked for none (its deliveries were due at once).
ALTER TABLE messages ADD COLUMN deliver_at BIGINT;
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
ALTER TABLE idempotency_keys ADD COLUMN owner TEXT COLLATE "C";
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
    name: "the dead-letter depth trigger keeps its own schema's count",
    sql: `
-- The trigger function named dead_letter_depth unqualified, so it found the table on the search_path
-- of whoever changed a dead letter: a session on another schema (psql on the default path, a
-- restore, a second hookline's schema in the same database) failed, or counted in the other
-- schema's table. Pinned to the schema it was made in (this migration runs with the search_path
-- set to it alone), with pg_temp last so a session's temporary table cannot stand in for it.
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION %I.dead_letter_depth_keep() SET search_path = %I, pg_temp',
    current_schema(), current_schema());
END;
$$;
`,
  },
  {
    version: 16,
    name: "dead-letter tombstones by message",
    sql: `
-- Retention keeps a message while a tombstone of it is within the period (it may be resent):
-- asked once per old message it walks, so found by message, not among every tombstone kept.
CREATE INDEX dead_letter_overflow_by_message ON dead_letter_overflow (message_id, at);
`,
  },
  {
    version: 17,
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
    version: 18,
    name: "when a circuit opened",
    sql: `
-- When the circuit opened from closed: the start of the run of failures that its reopenings
-- continue, each moving \`since\` on, so that an endpoint's page says since when it has been
-- failing. NULL while closed. A circuit not closed takes its latest opening among its transitions;
-- one whose opening retention pruned stays NULL (not known).
ALTER TABLE circuits ADD COLUMN opened_at BIGINT;
UPDATE circuits SET opened_at = (SELECT t.at FROM circuit_transitions t
    WHERE t.endpoint_id = circuits.endpoint_id AND t.from_state = 'closed' AND t.to_state = 'open'
    ORDER BY t.seq DESC LIMIT 1)
  WHERE state <> 'closed';
`,
  },
  {
    version: 19,
    name: "the wait a retry's Retry-After asked for",
    sql: `
-- The wait the receiver's Retry-After asked for (ms), on the attempt whose answer sent it, when it
-- set the retry's time (honoured, or capped above 4 h); NULL otherwise, and for attempts made
-- before this column. A message's page says so beside the next attempt, which without it was an
-- unexplained gap (2 min instead of the ladder's 5 s).
ALTER TABLE attempts ADD COLUMN retry_after_ms BIGINT;
`,
  },
  {
    version: 20,
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
