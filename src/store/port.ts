/**
 * The storage port: the domain operations hookline needs from a database, and nothing generic.
 * Every adapter (SQLite now, PostgreSQL later) implements it and passes the same behavioural suite
 * (test/store/store.behaviour.ts). No SQL lives outside an adapter.
 */
import type {
  Application,
  Attempt,
  AttemptTrigger,
  CircuitRecord,
  DeadLetter,
  Delivery,
  Endpoint,
  EndpointStats,
  EventType,
  FailureClass,
  Message,
  RetryAfterUse,
} from "../domain/types.js";
import type { CircuitTransition } from "../engine/breaker.js";

/** Cursor pagination as the Svix API does it: `iterator` is the last id of the previous page. */
export interface PageQuery {
  limit: number;
  iterator?: string | null;
  order?: "ascending" | "descending";
}

export interface Page<T> {
  data: T[];
  iterator: string | null;
  done: boolean;
}

export interface MessageQuery extends PageQuery {
  eventTypes?: string[];
  channel?: string;
  before?: number;
  after?: number;
}

export interface AttemptQuery extends PageQuery {
  appId: string;
  endpointId?: string;
  messageId?: string;
  /** Svix status number: 0 success, 2 fail. */
  outcome?: "success" | "fail";
  before?: number;
  after?: number;
}

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
  /** Makes a delivery id; called once per chosen endpoint. */
  newDeliveryId: () => string;
}

export interface AcceptResult {
  message: Message;
  /** False when a message with the same eventId already existed: nothing new was written. */
  created: boolean;
  deliveries: number;
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
}

/** One attempt-less state change: a delivery put back (shutdown, paused circuit). */
export interface Release {
  deliveryId: string;
  at: number;
}

export interface IdempotencyBegin {
  scope: string;
  key: string;
  fingerprint: string;
  now: number;
  /** How long a started-but-unfinished request blocks others with the same key. */
  lockMs: number;
  ttlMs: number;
}

export type IdempotencyState =
  | { kind: "new" }
  | { kind: "replay"; status: number; body: string }
  | { kind: "in-progress" }
  | { kind: "mismatch" };

export interface Store {
  readonly kind: "sqlite" | "postgres";
  close(): Promise<void>;
  /** Throws StoreUnavailableError when the store cannot be used. */
  ping(): Promise<void>;

  createApplication(app: Application): Promise<Application>;
  findApplication(idOrUid: string): Promise<Application | null>;
  listApplications(q: PageQuery): Promise<Page<Application>>;
  updateApplication(app: Application): Promise<Application>;
  deleteApplication(id: string): Promise<void>;

  createEndpoint(ep: Endpoint): Promise<Endpoint>;
  findEndpoint(appId: string, idOrUid: string): Promise<Endpoint | null>;
  getEndpoint(id: string): Promise<Endpoint | null>;
  listEndpoints(appId: string, q: PageQuery): Promise<Page<Endpoint>>;
  updateEndpoint(ep: Endpoint): Promise<Endpoint>;
  deleteEndpoint(appId: string, id: string): Promise<void>;

  createEventType(et: EventType): Promise<EventType>;
  findEventType(name: string): Promise<EventType | null>;
  listEventTypes(q: PageQuery & { includeArchived?: boolean }): Promise<Page<EventType>>;
  updateEventType(et: EventType): Promise<EventType>;
  deleteEventType(name: string): Promise<void>;

  beginIdempotent(req: IdempotencyBegin): Promise<IdempotencyState>;
  finishIdempotent(scope: string, key: string, status: number, body: string): Promise<void>;
  abandonIdempotent(scope: string, key: string): Promise<void>;

  /**
   * Stores the message and one pending delivery per matching enabled endpoint, in one transaction
   * that is committed before this resolves. A repeated eventId writes nothing.
   */
  acceptMessage(msg: NewMessage): Promise<AcceptResult>;
  findMessage(appId: string, idOrEventId: string): Promise<Message | null>;
  listMessages(appId: string, q: MessageQuery): Promise<Page<Message>>;
  /** A new delivery of an existing message to one endpoint, due now (a manual resend). */
  enqueueResend(input: {
    id: string;
    appId: string;
    messageId: string;
    endpointId: string;
    now: number;
  }): Promise<Delivery>;

  /** Puts every claimed delivery back to pending, due at `now` (a single-node start after a crash). */
  recoverInflight(now: number): Promise<number>;
  /**
   * Claims up to `limit` pending deliveries due by `now`, oldest due first, skipping the listed
   * endpoints, in one atomic statement; they stay claimed until recorded or released.
   */
  claimDue(req: {
    now: number;
    limit: number;
    excludeEndpoints: readonly string[];
    leaseUntil: number;
  }): Promise<ClaimedDelivery[]>;
  /** The earliest due time of a pending delivery outside the listed endpoints, or null. */
  nextDueAt(excludeEndpoints: readonly string[]): Promise<number | null>;
  /** Records attempts and moves their deliveries on (succeeded, retry, dead-lettered), atomically. */
  recordAttempts(outcomes: readonly DeliveryOutcome[]): Promise<void>;
  /** Returns claimed deliveries to pending without spending an attempt. */
  releaseDeliveries(releases: readonly Release[]): Promise<void>;
  /** Moves every pending delivery of an endpoint due before `until` to `until` (circuit open). */
  pauseEndpoint(endpointId: string, until: number): Promise<number>;
  getDelivery(id: string): Promise<Delivery | null>;
  listDeliveries(messageId: string): Promise<Delivery[]>;

  saveCircuit(
    endpointId: string,
    snapshot: CircuitRecord,
    transition: CircuitTransition | null,
  ): Promise<void>;
  loadCircuits(): Promise<Map<string, CircuitRecord>>;
  getCircuit(endpointId: string): Promise<CircuitRecord | null>;
  listCircuitTransitions(
    endpointId: string,
    limit: number,
  ): Promise<(CircuitTransition & { endpointId: string })[]>;
  getEndpointStats(endpointId: string): Promise<EndpointStats>;

  listAttempts(q: AttemptQuery): Promise<Page<Attempt>>;
  findAttempt(appId: string, attemptId: string): Promise<Attempt | null>;
  listDeadLetters(
    q: PageQuery & { appId?: string; endpointId?: string },
  ): Promise<Page<DeadLetter>>;
  findDeadLetterByDelivery(deliveryId: string): Promise<DeadLetter | null>;
}

export type { AttemptTrigger };
