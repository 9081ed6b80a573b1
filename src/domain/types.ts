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
}

export type DeliveryState = "pending" | "inflight" | "succeeded" | "dead";
/** Why an attempt was made: the first try, a ladder retry, a person's resend, or a circuit probe. */
export type AttemptTrigger = "first" | "retry" | "manual" | "probe";
export type FailureClass = "exhausted" | "permanent";
export type RetryAfterUse = "honoured" | "capped" | "ignored";

/** One message on its way to one endpoint. */
export interface Delivery {
  id: string;
  appId: string;
  messageId: string;
  endpointId: string;
  state: DeliveryState;
  /** `resend` deliveries were asked for by a person; their first attempt is `manual`. */
  origin: "message" | "resend";
  attemptCount: number;
  nextAttemptAt: number | null;
  firstAttemptAt: number | null;
  lastAttemptAt: number | null;
  lastDelayMs: number | null;
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
}

/** A delivery that hookline gave up on, kept with what a person needs to fix and replay it. */
export interface DeadLetter {
  id: string;
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
  signatureHeaders: Record<string, string>;
  firstAttemptAt: number | null;
  lastAttemptAt: number | null;
  state: "open" | "replaying" | "resolved" | "abandoned";
  replayCount: number;
  createdAt: number;
}

/** The circuit breaker's persisted state for one endpoint. */
export type CircuitRecord = CircuitSnapshot;

/** Counters shown on an endpoint. */
export interface EndpointStats {
  retryAfter: Record<RetryAfterUse, number>;
  lastSuccessAt: number | null;
}
