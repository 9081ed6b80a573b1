/**
 * hookline's domain records, as the store keeps them and the engine and API use them.
 * Times are milliseconds since the Unix epoch; payloads are the exact bytes accepted.
 */
import type { RetryPolicySpec } from "../engine/ladder.js";
import type { OutcomeClass, TransportErrorClass } from "../engine/outcome.js";
import type { CircuitSnapshot } from "../engine/breaker.js";
import type { EndpointSecrets } from "../signing/sign.js";

/** How deliveries to an endpoint behave; set per application and per endpoint (endpoint wins). */
export interface DeliveryPolicy {
  retry?: RetryPolicySpec;
  /** Requests in flight at once to the endpoint, 1–500. */
  concurrencyLimit?: number;
  /** Status codes that are permanent failures (no retries, straight to the dead-letter state). */
  permanentStatuses?: number[];
  /** Request timeout in milliseconds, 1,000–30,000. */
  timeoutMs?: number;
}

/** A tenant of the platform: one of its customers, owning endpoints and messages. */
export interface Application {
  id: string;
  uid: string | null;
  name: string;
  rateLimit: number | null;
  metadata: Record<string, string>;
  deliveryPolicy: DeliveryPolicy | null;
  createdAt: number;
  updatedAt: number;
}

/** A URL of the application's customer that receives webhooks. */
export interface Endpoint {
  id: string;
  appId: string;
  uid: string | null;
  url: string;
  description: string;
  version: number;
  disabled: boolean;
  /** Why hookline disabled it (e.g. the receiver answered 410), or null. */
  disabledReason: string | null;
  filterTypes: string[] | null;
  channels: string[] | null;
  headers: Record<string, string>;
  metadata: Record<string, string>;
  rateLimit: number | null;
  secrets: EndpointSecrets;
  deliveryPolicy: DeliveryPolicy | null;
  createdAt: number;
  updatedAt: number;
}

/** A kind of event the platform sends, e.g. `invoice.paid`. */
export interface EventType {
  name: string;
  description: string;
  archived: boolean;
  deprecated: boolean;
  featureFlags: string[] | null;
  groupName: string | null;
  schemas: unknown;
  createdAt: number;
  updatedAt: number;
}

/** An event accepted for delivery; its payload bytes are stored once. */
export interface Message {
  id: string;
  appId: string;
  eventType: string;
  eventId: string | null;
  channels: string[] | null;
  tags: string[] | null;
  payload: Buffer;
  createdAt: number;
  /** When the caller asked for it to be delivered (MessageIn.deliverAt); null: at once. */
  deliverAt: number | null;
}

export type DeliveryState = "pending" | "inflight" | "succeeded" | "dead";
/**
 * Why an attempt was made: the first try, a ladder retry, a person's resend, a circuit probe, or the
 * single attempt of a dead-letter replay.
 */
export type AttemptTrigger = "first" | "retry" | "manual" | "probe" | "replay";
export type FailureClass = "exhausted" | "permanent";
export type RetryAfterUse = "honoured" | "capped" | "ignored";

/**
 * A receiver's Retry-After that hookline did not follow, and why: a wait past 24 h (`askedMs`, the
 * wait it asked for), or a value that is neither a number of seconds nor an HTTP date (`value`,
 * as it came, cut to 64 characters, control and direction characters replaced:
 * engine/retry-after.ts).
 */
export type IgnoredRetryAfter =
  { reason: "too-long"; askedMs: number } | { reason: "malformed"; value: string };

/** One message on its way to one endpoint. */
export interface Delivery {
  id: string;
  appId: string;
  messageId: string;
  endpointId: string;
  state: DeliveryState;
  /**
   * `resend` deliveries were asked for by a person; their first attempt is `manual`. `replay`
   * deliveries replay a dead-letter record: one attempt, never retried.
   */
  origin: "message" | "resend" | "replay";
  attemptCount: number;
  nextAttemptAt: number | null;
  firstAttemptAt: number | null;
  lastAttemptAt: number | null;
  lastDelayMs: number | null;
  /** The dead-letter record a `replay` delivery replays, else null. */
  deadLetterId: string | null;
  createdAt: number;
}

/** One HTTP request to an endpoint and what came of it. */
export interface Attempt {
  id: string;
  deliveryId: string;
  appId: string;
  messageId: string;
  endpointId: string;
  at: number;
  trigger: AttemptTrigger;
  url: string;
  status: number | null;
  error: TransportErrorClass | null;
  errorDetail: string | null;
  durationMs: number;
  responseSnippet: string;
  outcome: OutcomeClass;
  /**
   * The wait the answer's Retry-After asked for (ms), when it set the retry's time: honoured, or
   * above 4 h capped at 4 h (retry-after.ts); null without one, when it was ignored, or when no
   * retry followed. Absent on an attempt made in memory means null; one read from the store has it.
   */
  retryAfterMs?: number | null;
  /**
   * The answer's Retry-After hookline ignored, and why, when the ladder then set the retry's time;
   * null without one, when it was followed, or when no retry followed. Absent means null, as above.
   */
  retryAfterIgnored?: IgnoredRetryAfter | null;
}

/** Where a dead-letter record stands; see docs/runbook.md. */
export type DeadLetterState = "open" | "replaying" | "resolved" | "abandoned";

/** A delivery that hookline gave up on, kept with what a person needs to fix and replay it. */
export interface DeadLetter {
  id: string;
  /** The delivery that was given up on (its attempts are the record's first attempts). */
  deliveryId: string;
  appId: string;
  endpointId: string;
  messageId: string;
  eventId: string | null;
  eventType: string;
  failureClass: FailureClass;
  reason: string;
  finalStatus: number | null;
  finalError: string | null;
  /** The headers of the original delivery's last attempt; replays never replace them. */
  signatureHeaders: Record<string, string>;
  firstAttemptAt: number | null;
  lastAttemptAt: number | null;
  state: DeadLetterState;
  replayCount: number;
  /** Replays that failed since the last success; reaching the limit abandons the record. */
  failedReplays: number;
  /** When it was dead-lettered. */
  createdAt: number;
  /** When its state last changed (retention counts from here once it is closed). */
  updatedAt: number;
}

/** What happened to a dead-letter record, by whom: its audit trail. */
export interface DeadLetterEvent {
  at: number;
  /** The operator's identity, or `hookline` for what hookline did by itself. */
  actor: string;
  action:
    | "dead_lettered"
    | "replay_requested"
    | "replayed"
    | "replay_withdrawn"
    | "resolved"
    | "abandoned";
  result: string;
  note: string | null;
  /** The replay delivery this entry is about, if any. */
  deliveryId: string | null;
  /** The bulk replay job this entry belongs to, if any. */
  jobId: string | null;
}

/** A dead-letter record with its payload, every attempt (original and replays) and its history. */
export interface DeadLetterRecord extends DeadLetter {
  /** The stored message bytes, exactly as sent (null only if the message is gone). */
  payload: Buffer | null;
  attempts: Attempt[];
  history: DeadLetterEvent[];
}

/**
 * A dead letter not kept as a record because its endpoint had reached its depth cap: the
 * tombstone that says so. The message itself stays until retention, so it can still be resent.
 */
export interface DeadLetterOverflow {
  id: string;
  deliveryId: string;
  appId: string;
  endpointId: string;
  messageId: string;
  eventId: string | null;
  eventType: string;
  failureClass: FailureClass;
  reason: string;
  at: number;
}

/** Which dead-letter records a bulk replay takes; every given field must match. */
export interface ReplaySelection {
  appId?: string;
  endpointId?: string;
  failureClass?: FailureClass;
  eventType?: string;
  /** Dead-lettered at or after this time. */
  since?: number;
  /** Dead-lettered before this time. */
  until?: number;
  /** Exactly these records (not combined with the other fields). */
  ids?: string[];
}

export type ReplayJobState = "scheduled" | "running" | "completed" | "stopped" | "cancelled";

/** A bulk replay of dead-letter records, run in the background at its own rate. */
export interface ReplayJob {
  id: string;
  /** `endpoint.recover` when started through the Svix recover call. */
  task: "dlq.replay" | "endpoint.recover";
  state: ReplayJobState;
  /** `canary` until the sample's results are in and good enough, then `rest`. */
  stage: "canary" | "rest";
  selection: ReplaySelection;
  ratePerSecond: number;
  canarySize: number;
  /** Success rate (0–1) the canary sample must reach for the rest to be replayed. */
  canaryThreshold: number;
  startAt: number;
  createdBy: string;
  note: string | null;
  /** Why it stopped, was cancelled, or is waiting. */
  reason: string | null;
  /**
   * Until when the runner that took it up holds it (renewed as it runs); null, or past, when no
   * runner does: a running job is then taken up by the next runner with room.
   */
  leaseUntil: number | null;
  progress: {
    /** Records selected; null until the job starts and takes its selection. */
    total: number | null;
    queued: number;
    succeeded: number;
    failed: number;
    skipped: number;
    withdrawn: number;
  };
  createdAt: number;
  updatedAt: number;
  startedAt: number | null;
  finishedAt: number | null;
}

/** The circuit breaker's persisted state for one endpoint. */
export type CircuitRecord = CircuitSnapshot;

/** Counters shown on an endpoint. */
export interface EndpointStats {
  retryAfter: Record<RetryAfterUse, number>;
  lastSuccessAt: number | null;
}

/** What an API token may reach: everything (`admin`), or one application's routes (`app`). */
export type ApiTokenScope = "admin" | "app";

/** A bearer token as stored: its SHA-256 (hex), never the token itself. */
export interface ApiToken {
  id: string;
  name: string;
  scope: ApiTokenScope;
  /** The application an `app` token is bound to; null for `admin`. */
  appId: string | null;
  /** Hex SHA-256 of the token. */
  hash: string;
  createdAt: number;
  revokedAt: number | null;
  /** When the token stops working (a portal link's token); null or absent: never. */
  expiresAt?: number | null;
  /**
   * The feature flags an `app` token was given (a portal link's `featureFlags`): it sees the event
   * types behind these flags. Null or absent: none.
   */
  featureFlags?: string[] | null;
}

/** One time bucket of an endpoint's attempts, for the dashboard's charts. */
export interface AttemptBucket {
  /** Start of the bucket (ms since the epoch). */
  start: number;
  attempts: number;
  successes: number;
  /** Mean and slowest attempt duration in the bucket. */
  meanDurationMs: number;
  maxDurationMs: number;
}
