/** The parts of hookline's API answers the dashboard reads (see the OpenAPI document). */

export type CircuitState = "closed" | "open" | "half-open";

export interface App {
  id: string;
  uid: string | null;
  name: string;
  createdAt: string;
  metadata?: Record<string, string>;
}

/** An endpoint's attempts over a recent window (the endpoint-health list). */
export interface EndpointHealth {
  endpointId: string;
  attempts: number;
  successes: number;
  successRate: number | null;
  meanDurationMs: number | null;
}

export interface Endpoint {
  id: string;
  uid: string | null;
  url: string;
  description: string;
  disabled: boolean;
  disabledReason?: string | null;
  filterTypes: string[] | null;
  /** Only messages on one of these channels reach it; null: every message, whatever its channels. */
  channels: string[] | null;
  rateLimit: number | null;
  circuit: {
    state: CircuitState;
    since: string;
    reason: string | null;
    nextProbeAt: string | null;
  };
  concurrency: { limit: number; effectiveLimit: number; inFlight: number };
  retryAfter: Record<string, number>;
  lastSuccessAt: string | null;
  /** How long the current secret keeps signing after a rotation; 0: it stops at once. */
  rotationGracePeriodSeconds: number;
  createdAt: string;
}

/** An endpoint's signing secret, and until when those it replaced still sign (hookline's). */
export interface EndpointSecret {
  key: string;
  previousSecrets: { signsUntil: string }[];
}

/** Svix's endpoint stats: messages counted by the status of their latest delivery there. */
export interface EndpointStats {
  success: number;
  pending: number;
  sending: number;
  fail: number;
  canceled: number;
  /** hookline's: the endpoint's deliveries waiting now, whatever their age, up to a bound. */
  pendingNow: { count: number; orMore: boolean; upTo: number };
}

export interface Circuit {
  state: CircuitState;
  since: string;
  reason: string | null;
  nextProbeAt: string | null;
  reopenCount: number;
  /** When the circuit opened from closed, which its reopenings leave; null while closed. */
  openedAt: string | null;
  transitions: { from: CircuitState; to: CircuitState; at: string; reason: string }[];
}

export interface RetrySchedule {
  preset: string;
  attempts: number;
  windowSeconds: number;
  description: string;
  source: string;
  retries: { attempt: number; nominalDelaySeconds: number; nominalOffsetSeconds: number }[];
  retryAfter: {
    honouredBelowSeconds: number;
    cappedToSeconds: number;
    ignoredAboveSeconds: number;
  };
  /** The statuses given up on at once (410 always among them), and which policy set them. */
  permanent: { statuses: number[]; source: "default" | "application" | "endpoint" };
}

export interface Stats {
  since: string;
  bucketSeconds: number;
  buckets: {
    start: string;
    attempts: number;
    successRate: number;
    meanDurationMs: number;
    maxDurationMs: number;
  }[];
}

export interface Attempt {
  id: string;
  msgId: string;
  endpointId: string;
  url: string;
  response: string;
  responseStatusCode: number;
  responseDurationMs: number;
  statusText: string;
  timestamp: string;
  trigger: string;
  error: string | null;
  errorDetail: string | null;
  outcome: string;
  /** How the answer's Retry-After set the wait before the next attempt. */
  retryAfter?: AskedWait | null;
  /** The answer's Retry-After hookline ignored, and why. */
  retryAfterIgnored?: IgnoredRetryAfter | null;
}

/**
 * What an attempt's Retry-After asked for and what hookline kept (the API's `retryAfter`): the wait
 * asked for and the one kept (less when capped). Null where it set none; absent from an older
 * hookline.
 */
export interface AskedWait {
  askedSeconds: number;
  waitSeconds: number;
}

/**
 * An attempt's Retry-After that hookline ignored, the retry schedule then setting the next attempt
 * (the API's `retryAfterIgnored`): a wait over 24 h, or a value neither a number of seconds nor a
 * date (as it came, cut short). Null where none was ignored; absent from an older hookline.
 */
export type IgnoredRetryAfter =
  { reason: "too-long"; askedSeconds: number } | { reason: "malformed"; value: string };

export interface Message {
  id: string;
  eventType: string;
  eventId: string | null;
  payload: unknown;
  channels: string[] | null;
  tags: string[] | null;
  timestamp: string;
  /** Where its deliveries stand, when listed with `with_status=true`. */
  deliveryStatus?: DeliveryStatus;
}

/** A listed message's endpoints counted by status, and one word for them all. */
export interface DeliveryStatus {
  statusText: "fail" | "pending" | "sending" | "success" | "none";
  success: number;
  pending: number;
  sending: number;
  fail: number;
}

export interface DeadLetter {
  id: string;
  appId: string;
  endpointId: string;
  messageId: string;
  deliveryId: string;
  eventId: string | null;
  eventType: string;
  failureClass: string;
  reason: string;
  finalStatus: number | null;
  state: "open" | "replaying" | "resolved" | "abandoned";
  replayCount: number;
  deadLetteredAt: string;
}

export interface DeadLetterRecord extends DeadLetter {
  payload: unknown;
  attempts: {
    id: string;
    at: string;
    trigger: string;
    url: string;
    status: number | null;
    error: string | null;
    errorDetail: string | null;
    durationMs: number;
    outcome: string;
    response: string;
    /** As an attempt's (see {@link AskedWait}). */
    retryAfter?: AskedWait | null;
    /** As an attempt's (see {@link IgnoredRetryAfter}). */
    retryAfterIgnored?: IgnoredRetryAfter | null;
  }[];
  history: { at: string; actor: string; action: string; result: string; note: string | null }[];
}

export interface SummaryRow {
  appId: string;
  endpointId: string;
  url: string | null;
  /** Null on the row of an endpoint with nothing open, listed for its overflow. */
  failureClass: string | null;
  open: number;
  replaying: number;
  oldestAt: string | null;
  oldestAgeSeconds: number | null;
  circuit: { state: CircuitState };
  overflowed: number;
}

export interface ReplayJob {
  id: string;
  task: string;
  state: "scheduled" | "running" | "completed" | "stopped" | "cancelled";
  stage: "canary" | "rest";
  selection: Record<string, unknown>;
  ratePerSecond: number;
  canary: { size: number; threshold: number };
  startAt: string;
  createdBy: string;
  note: string | null;
  reason: string | null;
  progress: {
    total: number | null;
    queued: number;
    succeeded: number;
    failed: number;
    skipped: number;
    withdrawn: number;
    waiting: number | null;
    outstanding: number;
  };
  createdAt: string;
  finishedAt: string | null;
}

export interface Alert {
  id: string;
  rule: string;
  severity: "warning" | "critical";
  summary: string;
  endpointId: string | null;
  /** The endpoint's application (null without an endpoint, or once it is deleted). */
  appId: string | null;
  value: number;
  threshold: number;
  since: string;
  resolvedAt: string | null;
  /** Resolved because this alert carries on the same condition, not because it ended. */
  supersededBy: string | null;
}

export interface SystemStats {
  queueDepth: number;
  oldestDueAgeMs: number;
  dlqOpen: number;
  dlqOldestAgeMs: number;
  deliveredLastMinute: number;
  failedLastMinute: number;
}
