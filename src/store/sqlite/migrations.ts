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
];
