/**
 * hookline's settings, read from the environment once at start-up, validated, and frozen.
 * Only the entry point calls resolveConfig; everything else receives the resulting object.
 */
import { resolve } from "node:path";
import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { availableParallelism } from "node:os";
import { ConfigError } from "./errors.js";
import { pgVariablesUsed, type PgVariable } from "./postgres-environment.js";
import { parseKey } from "./security/cipher.js";
import { unknownSettings, type UnknownSetting } from "./unknown-settings.js";

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** Null means: use the token kept in the data dir, or generate one on first start. */
  adminToken: string | null;
  databaseUrl: string | null;
  /** PG* variables the driver takes for what DATABASE_URL leaves out, named when it fails. */
  pgVariables: readonly PgVariable[];
  /** Schema holding hookline's tables in the PostgreSQL database (with DATABASE_URL). */
  pgSchema: string;
  /** Connections one hookline process may open to PostgreSQL at once. */
  pgPoolSize: number;
  /** Prepare the statements run per message and delivery (off for poolers that cannot keep them). */
  pgPreparedStatements: boolean;
  /** How long a PostgreSQL statement may wait for its answer before it fails as unavailable. */
  pgQueryTimeoutMs: number;
  allowPrivateTargets: boolean;
  requestTimeoutMs: number;
  secretGraceMs: number;
  defaultConcurrency: number;
  /** Worker threads that make the HTTP requests of deliveries; 0: the main thread does. */
  senderThreads: number;
  shutdownTimeoutMs: number;
  sqliteSynchronous: "normal" | "full";
  maxBodyBytes: number;
  /** Per-token API rate limit (see src/api/rate-limit.ts). */
  apiRateLimit: { ratePerSecond: number; burst: number; limitBootstrapToken: boolean };
  /** Largest request header block the API reads (431 beyond). */
  maxHeaderBytes: number;
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /** Base URL printed and used in links; defaults to http://host:port. */
  publicUrl: string | null;
  /** How long messages, and closed dead-letter records, are kept. */
  retentionMs: number;
  /** Open dead-letter records one endpoint may have; beyond it, tombstones and a counter. */
  dlqMaxPerEndpoint: number;
  /** Failed replays in a row after which a record is abandoned; 0: never. */
  dlqMaxReplays: number;
  /** Default rate of a bulk replay, replays per second. */
  dlqReplayRate: number;
  /** Default canary sample of a bulk replay; 0: no canary. */
  dlqCanarySize: number;
  /** Default success rate (0–1) the canary must reach. */
  dlqCanaryThreshold: number;
  /** What this process does: the API, deliveries, or both (several processes need PostgreSQL). */
  role: "all" | "api" | "worker";
  /** How often a worker sharing PostgreSQL says it is alive. */
  workerHeartbeatMs: number;
  /** A worker silent this long is dead: the others take its endpoints and claimed deliveries. */
  workerDeadAfterMs: number;
  /** The key sealing secrets and payloads at rest (32 bytes), or null: stored as plaintext. */
  encryptionKey: Buffer | null;
  /** Earlier keys, used only to open values sealed before a rotation. */
  encryptionOldKeys: Buffer[];
  /** Endpoints with metric series of their own; the others are counted under `_other`. */
  metricsMaxEndpoints: number;
  /** Whether /metrics may be scraped without a token. */
  metricsPublic: boolean;
  /** How often hookline evaluates its alert rules. */
  alertIntervalMs: number;
  /** Alert thresholds (see docs/observability.md). */
  alerts: {
    exhaustionRate: number;
    exhaustionForMs: number;
    dlqMaxAgeMs: number;
    endpointSuccessRate: number;
    healthySuccessRate: number;
    endpointForMs: number;
    dlqStuckMs: number;
    queueLagMs: number;
  };
  /** Run a failure drill this often; 0: only when asked (`hookline drill`). */
  drillIntervalMs: number;
  /** How long each step of a drill may take before the drill fails. */
  drillStepTimeoutMs: number;
  /** Attempts of a delivery after which `message.attempt.failing` is sent. */
  opWebhookFailingAfter: number;
  /** HOOKLINE_* variables set that no setting reads (reported at start, see unknown-settings.ts). */
  unknownSettings: readonly UnknownSetting[];
}

type Env = Record<string, string | undefined>;

/** Reads and validates every HOOKLINE_* setting; throws ConfigError naming the bad variable. */
export function resolveConfig(given: Env): Readonly<Config> {
  return resolveRecording(given, new Set());
}

/**
 * The HOOKLINE_* variables in `given` that are no setting, for when resolveConfig refused one
 * that is: it stops at the first bad value, before it has read every name, and a misspelt
 * variable (HOOKLINE_DATABASE_URL for DATABASE_URL) is often why another setting is refused.
 */
export function unknownIn(given: Env): readonly UnknownSetting[] {
  // Every name is read whatever the values, so resolving nothing set reads them all.
  const names = new Set<string>();
  resolveRecording({}, names);
  return unknownSettings(Object.keys(given), names);
}

function resolveRecording(given: Env, read: Set<string>): Readonly<Config> {
  // Every setting is read below whatever the others say, so the names read are hookline's settings.
  const env = new Proxy(given, {
    get: (target, name) => {
      if (typeof name !== "string") return undefined;
      read.add(name);
      return target[name];
    },
  });
  const config: Config = {
    port: int(env, "HOOKLINE_PORT", 8080, 0, 65535),
    host: host(env),
    dataDir: resolve(str(env, "HOOKLINE_DATA_DIR", "./data")),
    adminToken: token(env),
    databaseUrl: env.DATABASE_URL?.trim() || null,
    pgVariables: [],
    pgSchema: schema(env, "HOOKLINE_PG_SCHEMA", "hookline"),
    pgPoolSize: int(env, "HOOKLINE_PG_POOL_SIZE", 10, 1, 1000),
    pgPreparedStatements: bool(env, "HOOKLINE_PG_PREPARED_STATEMENTS", true),
    pgQueryTimeoutMs: int(env, "HOOKLINE_PG_QUERY_TIMEOUT_MS", 30_000, 1_000, 3_600_000),
    allowPrivateTargets: bool(env, "HOOKLINE_ALLOW_PRIVATE_TARGETS", false),
    requestTimeoutMs: int(env, "HOOKLINE_REQUEST_TIMEOUT_MS", 15_000, 1_000, 30_000),
    secretGraceMs: int(env, "HOOKLINE_SECRET_GRACE_SECONDS", 86_400, 0, 30 * 86_400) * 1000,
    defaultConcurrency: int(env, "HOOKLINE_DEFAULT_CONCURRENCY", 100, 1, 500),
    senderThreads: int(env, "HOOKLINE_SENDER_THREADS", defaultSenderThreads(), 0, 64),
    shutdownTimeoutMs: int(env, "HOOKLINE_SHUTDOWN_TIMEOUT_MS", 10_000, 0, 300_000),
    sqliteSynchronous: oneOf(env, "HOOKLINE_SQLITE_SYNCHRONOUS", ["normal", "full"], "normal"),
    maxBodyBytes: int(env, "HOOKLINE_MAX_BODY_BYTES", 1024 * 1024, 1024, 64 * 1024 * 1024),
    apiRateLimit: {
      ratePerSecond: int(env, "HOOKLINE_API_RATE_LIMIT", 1000, 0, 1_000_000),
      burst: int(env, "HOOKLINE_API_RATE_BURST", 2000, 1, 10_000_000),
      limitBootstrapToken: bool(env, "HOOKLINE_API_RATE_LIMIT_ADMIN", false),
    },
    maxHeaderBytes: int(env, "HOOKLINE_MAX_HEADER_BYTES", 16 * 1024, 1024, 1024 * 1024),
    logLevel: oneOf(
      env,
      "HOOKLINE_LOG_LEVEL",
      ["fatal", "error", "warn", "info", "debug", "trace", "silent"],
      "info",
    ),
    publicUrl: url(env, "HOOKLINE_PUBLIC_URL"),
    retentionMs: int(env, "HOOKLINE_RETENTION_DAYS", 30, 1, 3650) * 86_400_000,
    dlqMaxPerEndpoint: int(env, "HOOKLINE_DLQ_MAX_PER_ENDPOINT", 10_000, 1, 10_000_000),
    dlqMaxReplays: int(env, "HOOKLINE_DLQ_MAX_REPLAYS", 5, 0, 1000),
    dlqReplayRate: int(env, "HOOKLINE_DLQ_REPLAY_RATE", 5, 1, 1000),
    dlqCanarySize: int(env, "HOOKLINE_DLQ_CANARY_SIZE", 10, 0, 10_000),
    dlqCanaryThreshold: int(env, "HOOKLINE_DLQ_CANARY_THRESHOLD_PERCENT", 90, 0, 100) / 100,
    role: oneOf(env, "HOOKLINE_ROLE", ["all", "api", "worker"], "all"),
    workerHeartbeatMs: int(env, "HOOKLINE_WORKER_HEARTBEAT_MS", 1_000, 100, 60_000),
    workerDeadAfterMs: int(env, "HOOKLINE_WORKER_DEAD_AFTER_MS", 10_000, 300, 600_000),
    encryptionKey: encryptionKey(env),
    encryptionOldKeys: (env.HOOKLINE_ENCRYPTION_OLD_KEYS ?? "")
      .split(",")
      .filter((k) => k.trim())
      // Which of the list, counted from 1: the keys themselves are not for the log.
      .map((k, i, all) =>
        parseKey(k, `HOOKLINE_ENCRYPTION_OLD_KEYS${all.length > 1 ? ` (key ${i + 1})` : ""}`),
      ),
    metricsMaxEndpoints: int(env, "HOOKLINE_METRICS_MAX_ENDPOINTS", 500, 0, 100_000),
    metricsPublic: bool(env, "HOOKLINE_METRICS_PUBLIC", false),
    alertIntervalMs: int(env, "HOOKLINE_ALERT_INTERVAL_SECONDS", 30, 1, 3600) * 1000,
    alerts: {
      exhaustionRate: int(env, "HOOKLINE_ALERT_EXHAUSTION_PERCENT", 1, 0, 100) / 100,
      exhaustionForMs: int(env, "HOOKLINE_ALERT_EXHAUSTION_FOR_MINUTES", 10, 0, 1440) * 60_000,
      dlqMaxAgeMs: int(env, "HOOKLINE_ALERT_DLQ_MAX_AGE_HOURS", 24, 1, 8760) * 3_600_000,
      endpointSuccessRate: int(env, "HOOKLINE_ALERT_ENDPOINT_SUCCESS_PERCENT", 50, 0, 100) / 100,
      healthySuccessRate: int(env, "HOOKLINE_ALERT_HEALTHY_SUCCESS_PERCENT", 95, 0, 100) / 100,
      endpointForMs: int(env, "HOOKLINE_ALERT_ENDPOINT_FOR_MINUTES", 5, 0, 1440) * 60_000,
      dlqStuckMs: int(env, "HOOKLINE_ALERT_DLQ_STUCK_MINUTES", 60, 1, 10_080) * 60_000,
      queueLagMs: int(env, "HOOKLINE_ALERT_QUEUE_LAG_SECONDS", 300, 1, 86_400) * 1000,
    },
    drillIntervalMs: int(env, "HOOKLINE_DRILL_INTERVAL_MINUTES", 0, 0, 10_080) * 60_000,
    drillStepTimeoutMs: int(env, "HOOKLINE_DRILL_STEP_TIMEOUT_SECONDS", 60, 5, 3600) * 1000,
    opWebhookFailingAfter: int(env, "HOOKLINE_OPWEBHOOK_FAILING_AFTER", 4, 1, 100),
    unknownSettings: [],
  };
  config.unknownSettings = Object.freeze(unknownSettings(Object.keys(given), read));
  if (config.databaseUrl) {
    checkPostgresUrl(config.databaseUrl);
    // From `given`: they are PostgreSQL's variables, not settings of hookline's to record.
    config.pgVariables = Object.freeze(pgVariablesUsed(config.databaseUrl, given));
  }
  if (config.role !== "all" && !config.databaseUrl) {
    throw new ConfigError(
      `HOOKLINE_ROLE (--role) ${config.role} needs DATABASE_URL=postgres://…: separate API and worker processes share one PostgreSQL; embedded SQLite serves one process running both`,
    );
  }
  if (config.workerDeadAfterMs < 3 * config.workerHeartbeatMs) {
    // Both values and what would do: often only one was set, and the other is its default.
    const { workerDeadAfterMs: deadAfter, workerHeartbeatMs: heartbeat } = config;
    const byDefault = given.HOOKLINE_WORKER_DEAD_AFTER_MS?.trim() ? "" : " (its default)";
    throw new ConfigError(
      `HOOKLINE_WORKER_DEAD_AFTER_MS must be at least three times HOOKLINE_WORKER_HEARTBEAT_MS, so one late heartbeat does not declare a worker dead: it is ${deadAfter}${byDefault} with heartbeats every ${heartbeat} ms; set it to ${3 * heartbeat} or more, or the heartbeat to ${Math.floor(deadAfter / 3)} or less`,
    );
  }
  Object.freeze(config.alerts);
  return Object.freeze(config);
}

/**
 * Refuses a PostgreSQL URL that cannot be used, naming `setting`; `unset` says what leaving it out
 * means, if it may be left out.
 */
export function checkPostgresUrl(
  raw: string,
  setting = "DATABASE_URL",
  unset = " (or unset for embedded SQLite)",
): void {
  if (!/^postgres(ql)?:\/\//.test(raw)) {
    throw new ConfigError(`${setting} must be a postgres:// URL${unset}`);
  }
  try {
    new URL(raw);
  } catch {
    // Mostly a password with a reserved character left as it is. Neither the URL nor the
    // parser's error (which carries it as `input`) goes with this one: it holds the password.
    throw new ConfigError(
      `${setting} is not a valid URL: check its host and port, and percent-encode characters such as @ : / ? # in its user name or password (/ as %2F, ? as %3F, # as %23)`,
    );
  }
}

function str(env: Env, name: string, fallback: string): string {
  const v = env[name]?.trim();
  return v ? v : fallback;
}

/** A label of a host name: letters, digits, hyphens inside, and underscores (service names). */
const HOST_LABEL = "[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?";
const HOST_NAME = new RegExp(`^${HOST_LABEL}(?:\\.${HOST_LABEL})*\\.?$`);

/**
 * HOOKLINE_HOST, refused here if it cannot be listened on whatever the network says: the listen
 * comes last in start-up, after the delivery engine started sending. (A name or address of no
 * interface here is still found only then.)
 */
function host(env: Env): string {
  const raw = str(env, "HOOKLINE_HOST", "127.0.0.1");
  if (isIP(raw) || HOST_NAME.test(raw)) return raw;
  const bracketed = /^\[(.*)\]$/.exec(raw)?.[1];
  const withoutPort = raw.replace(/:\d+$/, "");
  const why = raw.includes("://")
    ? "an address or a host name to listen on, not a URL (the port is HOOKLINE_PORT, and the URL hookline prints and links to is HOOKLINE_PUBLIC_URL)"
    : bracketed && isIP(bracketed)
      ? `an IPv6 address without the brackets a URL puts around it (${bracketed})`
      : withoutPort !== raw &&
          (isIP(withoutPort) || HOST_NAME.test(withoutPort) || /^\[.+\]$/.test(withoutPort))
        ? "an address or a host name without a port (the port is HOOKLINE_PORT)"
        : "an address or a host name to listen on (0.0.0.0 or :: for every interface)";
  throw new ConfigError(`HOOKLINE_HOST must be ${why}, got "${raw}"`);
}

// One sender thread when there is a second core for it; a single core gains nothing from it.
function defaultSenderThreads(): number {
  return availableParallelism() >= 2 ? 1 : 0;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

/**
 * PostgreSQL's reserved words (`pg_get_keywords()`, categories R and T, PostgreSQL 15): hookline
 * writes the schema's name unquoted, so none of these can be one.
 */
const RESERVED_WORDS = new Set(
  (
    "all analyse analyze and any array as asc asymmetric authorization binary both case cast " +
    "check collate collation column concurrently constraint create cross current_catalog " +
    "current_date current_role current_schema current_time current_timestamp current_user " +
    "default deferrable desc distinct do else end except false fetch for foreign freeze from " +
    "full grant group having ilike in initially inner intersect into is isnull join lateral " +
    "leading left like limit localtime localtimestamp natural not notnull null offset on only " +
    "or order outer overlaps placing primary references returning right select session_user " +
    "similar some symmetric table tablesample then to trailing true union unique user using " +
    "variadic verbose when where window with"
  ).split(" "),
);

/** The longest schema name: its notification channel, `hookline_<schema>`, must fit in 63. */
const MAX_SCHEMA_NAME = 63 - "hookline_".length;

function schema(env: Env, name: string, fallback: string): string {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  checkSchemaName(raw, name);
  return raw;
}

/** Refuses a PostgreSQL schema name hookline cannot use, naming `setting` (a variable or option). */
export function checkSchemaName(raw: string, setting: string): void {
  const why = !new RegExp(`^[a-z_][a-z0-9_]{0,${MAX_SCHEMA_NAME - 1}}$`).test(raw)
    ? `a schema name of lower-case letters, digits and underscores (at most ${MAX_SCHEMA_NAME}, not starting with a digit)`
    : raw.startsWith("pg_") || raw === "information_schema"
      ? "a name not starting with pg_ nor information_schema (PostgreSQL keeps those for itself, and pg_dump leaves them out)"
      : RESERVED_WORDS.has(raw)
        ? "a name that is not one of PostgreSQL's reserved words"
        : null;
  if (why) throw new ConfigError(`${setting} must be ${why}, got "${raw}"`);
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (["1", "true", "yes", "on"].includes(raw)) return true;
  if (["0", "false", "no", "off"].includes(raw)) return false;
  throw new ConfigError(
    `${name} must be 1, true, yes or on, or 0, false, no or off, got "${env[name]}"`,
  );
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (!(values as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${values.join(", ")}, got "${env[name]}"`);
  }
  return raw as T;
}

/** What a bootstrap admin token must be, whether set or kept in the data dir. */
export const ADMIN_TOKEN_RULE =
  "at least 16 characters, each a printable ASCII character other than a space";

/**
 * Whether `raw` keeps ADMIN_TOKEN_RULE. Only printable ASCII survives an Authorization header
 * unchanged: a token with "é" in it was accepted, then every client's bytes for it (UTF-8 from a
 * terminal, refused outright by browsers' fetch) compared unequal, and the operator got 401s.
 */
export function isUsableAdminToken(raw: string): boolean {
  return raw.length >= 16 && /^[\x21-\x7e]+$/.test(raw);
}

function token(env: Env): string | null {
  const raw = env.HOOKLINE_ADMIN_TOKEN?.trim();
  if (!raw) return null;
  if (!isUsableAdminToken(raw)) {
    throw new ConfigError(`HOOKLINE_ADMIN_TOKEN must be ${ADMIN_TOKEN_RULE}`);
  }
  return raw;
}

function url(env: Env, name: string): string | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  let u: URL;
  try {
    u = new URL(raw);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("scheme");
  } catch (err) {
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`, { cause: err });
  }
  // Links are this plus a path: a query or fragment would split them, and credentials would go
  // out in every portal link. (`?` and `#` are tested in the text: an empty one parses as none.)
  if (/[?#]/.test(raw) || u.username || u.password) {
    throw new ConfigError(
      `${name} must be a base URL without credentials, query or fragment (hookline appends paths to it), got "${shownWithoutCredentials(raw, u)}"`,
    );
  }
  return `${u.origin}${u.pathname}`.replace(/\/+$/, "");
}

/**
 * The URL as given, its credentials replaced: start-up errors go to the log, which is no place
 * for the password the setting was refused for.
 */
function shownWithoutCredentials(raw: string, u: URL): string {
  if (!u.username && !u.password) return raw;
  const at = raw.indexOf("@", raw.indexOf("//") + 2);
  return `${raw.slice(0, raw.indexOf("//") + 2)}(credentials hidden)${raw.slice(at)}`;
}

function encryptionKey(env: Env): Buffer | null {
  const raw = env.HOOKLINE_ENCRYPTION_KEY?.trim();
  const file = env.HOOKLINE_ENCRYPTION_KEY_FILE?.trim();
  if (raw && file) {
    throw new ConfigError("set HOOKLINE_ENCRYPTION_KEY or HOOKLINE_ENCRYPTION_KEY_FILE, not both");
  }
  if (raw) return parseKey(raw, "HOOKLINE_ENCRYPTION_KEY");
  if (!file) return null;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new ConfigError(
      `HOOKLINE_ENCRYPTION_KEY_FILE ${file} cannot be read: ${whyUnreadable(err)}`,
      { cause: err },
    );
  }
  return parseKey(text, "HOOKLINE_ENCRYPTION_KEY_FILE");
}

/**
 * Why a key file could not be read, in words: a secret not mounted (no such file) and a mount
 * point given for the file in it (a directory) are fixed elsewhere than a permission.
 */
function whyUnreadable(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  const reasons: Record<string, string> = {
    ENOENT: "there is no such file",
    ENOTDIR: "a part of the path is a file, not a directory",
    EISDIR: "it is a directory, not a file",
    EACCES: "permission denied",
    EPERM: "permission denied",
  };
  return (
    (typeof code === "string" && reasons[code]) ||
    (err instanceof Error ? err.message : String(err))
  );
}
