/** Messages and their deliveries through the port: accepting, claiming, scanning and recording outcomes. */
import type {
  Attempt,
  Delivery,
  FailureClass,
  Message,
  RetryAfterUse,
} from "../../domain/types.js";
import type { ClaimingWorker } from "../coordination.js";
import type { HeldIdempotencyKey } from "../port.js";
import type { DeadLetterChange } from "./dead-letters.js";

/** A message to accept, with the endpoints it must go to already chosen inside the transaction. */
export interface NewMessage {
  id: string;
  appId: string;
  eventType: string;
  eventId: string | null;
  channels: string[] | null;
  tags: string[] | null;
  payload: Buffer;
  now: number;
  /** Deliveries are due at this time (deliverAt), defaulting to `now`. */
  dueAt: number;
  /** The time the caller asked for (MessageIn.deliverAt), kept on the message; none: null. */
  deliverAt?: number | null;
  /** Makes a delivery id; called once per chosen endpoint. */
  newDeliveryId: () => string;
  /** Only this endpoint may receive it (a test event sent to one endpoint). */
  onlyEndpointId?: string;
  /** The engine, offering to take deliveries it would send at once (see `Intake`). */
  intake?: Intake;
  /** The idempotency key the post holds, whose answer is kept in the message's transaction. */
  keyAnswer?: KeyAnswer;
}

/**
 * A keyed request's idempotency key and its answer, kept on the key in the transaction of what the
 * request writes: kept apart, an answer the store failed to keep after the write committed left the
 * key to run again once its lock ended, and what it made (a message, an endpoint, a resend) to be
 * made twice. `answer` is called inside the transaction with what the write did (as the caller will
 * be told it); null keeps none (the request is refused, and its key is freed as it ends).
 */
export interface KeptAnswer<R> {
  held: HeldIdempotencyKey;
  answer(result: R): { status: number; body: string } | null;
}

/** A message post's key and answer (see {@link KeptAnswer}). */
export type KeyAnswer = KeptAnswer<AcceptResult>;

/**
 * Lets the engine of the process that accepts a message take its deliveries as they are written,
 * when it would send them at once anyway: they are stored already claimed and handed over after
 * the commit, with no claim and no second read of the payload. A store may take none (PostgreSQL
 * does: there the worker that owns an endpoint claims its deliveries).
 */
export interface Intake {
  /**
   * How many more deliveries, due now, to this endpoint the engine takes; `forEndpoint` and `all`
   * count those already taken in the same transaction (for this endpoint, and for every one).
   */
  room(endpointId: string, forEndpoint: number, all: number): number;
  /** Until when taken deliveries stay claimed. */
  leaseUntil(): number;
  /** The transaction that wrote `deliveries` claimed has committed: they are the engine's now. */
  handOver(deliveries: ClaimedDelivery[]): void;
}

export interface AcceptResult {
  message: Message;
  /** False when a message with the same eventId already existed: nothing new was written. */
  created: boolean;
  deliveries: number;
  /** How many of `deliveries` were handed to the engine's intake as they were written. */
  taken: number;
}

/** What every claim of due deliveries is asked. */
export interface ClaimRequest {
  now: number;
  limit: number;
  excludeEndpoints: readonly string[];
  leaseUntil: number;
  /** With a shared store: the claiming worker, who takes only endpoints it owns or may own. */
  worker?: ClaimingWorker;
}

/** A delivery the engine has claimed, with what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  appId: string;
  messageId: string;
  endpointId: string;
  origin: Delivery["origin"];
  attemptCount: number;
  firstAttemptAt: number | null;
  lastDelayMs: number | null;
  dueAt: number;
  eventType: string;
  payload: Buffer;
  /** The worker whose claim took it, with a shared store; its outcome and release carry it. */
  claimedBy?: string;
}

/**
 * Where the engine's scan of due deliveries stands: every pending delivery due before `due` has
 * been looked at, and of those due at `due`, every one up to and including `row`. `row` orders
 * the deliveries that share a due time in a store's own terms (SQLite's rowid); a store without
 * such an order reads and reports only `due`, and walks again what is due at it.
 */
export interface ScanPosition {
  due: number;
  row: number;
}

/** Where a scan starts that has looked at nothing yet. */
export const SCAN_START: Readonly<ScanPosition> = Object.freeze({
  due: Number.MIN_SAFE_INTEGER,
  row: Number.MIN_SAFE_INTEGER,
});

/** Whether position `a` lies beyond `b` in a scan's order (due time, then row). */
export function scanPassed(a: ScanPosition, b: ScanPosition): boolean {
  return a.due > b.due || (a.due === b.due && a.row > b.row);
}

/** What one scan claimed, and where it stopped. */
export interface ScanResult {
  claimed: ClaimedDelivery[];
  /**
   * Where the walk stopped, when it stopped before `now`: at the last delivery claimed when the
   * batch filled, or where a store's window ended with the batch not full. Null once everything
   * due by `now` has been looked at.
   */
  reached: ScanPosition | null;
}

/** What the engine asks when it looks for due work by endpoint rather than in due order. */
export interface DueEndpointsRequest {
  now: number;
  /** Endpoints are looked at in id order after this one; "" starts from the first. */
  after: string;
  excludeEndpoints: readonly string[];
}

/** Endpoints found with work due, and where the look stopped. */
export interface DueEndpoints {
  endpoints: string[];
  /** The last endpoint looked at when a store's window ended first; null once all have been. */
  reached: string | null;
}

/** What one attempt did, and where its delivery goes next; recorded in batches. */
export interface DeliveryOutcome {
  deliveryId: string;
  endpointId: string;
  messageId: string;
  appId: string;
  at: number;
  /** Null when the delivery ends without a request (its endpoint was disabled meanwhile). */
  attempt: Omit<Attempt, "appId" | "messageId" | "endpointId" | "deliveryId"> | null;
  /** Headers the attempt was signed with; kept on the dead-letter record. */
  signatureHeaders: Record<string, string>;
  next:
    | { kind: "succeeded" }
    | { kind: "retry"; at: number; delayMs: number }
    | { kind: "dead"; failureClass: FailureClass; reason: string };
  retryAfter: RetryAfterUse | null;
  /** Set when the receiver asked never to be called again (410 Gone). */
  disableEndpoint: string | null;
  /** Which attempt of the delivery this was (1 for the first); announced, not stored. */
  attemptNumber?: number;
  /**
   * A dead-letter replay's delivery that ends without a request (an attempt's trigger says so
   * otherwise); announced, not stored.
   */
  replay?: boolean;
  /** The worker that claimed it (see {@link ClaimedDelivery}): only its claim is moved on. */
  claimedBy?: string;
  /**
   * Set on a resend's delivery: once it succeeds, the message is delivered to the endpoint, and
   * the open dead-letter records of the two are resolved (a bulk replay would send it again).
   */
  resend?: boolean;
  /**
   * A replay answered 429 with a Retry-After: "the receiver asked to wait 30 s (Retry-After)".
   * Kept in the record's history, so the replay's answer can tell the operator when to try again.
   */
  askedToWait?: string;
}

/** One attempt-less state change: a delivery put back (shutdown, paused circuit). */
export interface Release {
  deliveryId: string;
  at: number;
  /** The worker that claimed it (see {@link ClaimedDelivery}): only its claim is put back. */
  claimedBy?: string;
}

/** What one `recordAttempts` call kept; only that happened, and only that is announced. */
export interface RecordedOutcomes {
  /**
   * The deliveries whose outcome was recorded, each once. An outcome of a delivery no longer
   * claimed (its endpoint was deleted), or no longer claimed by the worker that sends it (declared
   * dead, its claims taken over by another), is left out: the store kept nothing of it.
   */
  kept: string[];
  /** What the kept outcomes did to the dead-letter queue, in the batch's order. */
  changes: DeadLetterChange[];
}
