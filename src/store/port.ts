/**
 * The storage port: the domain operations hookline needs from a database, and nothing generic.
 * Every adapter (SQLite now, PostgreSQL later) implements it and passes the same behavioural suite
 * (test/store/store.behaviour.ts). No SQL lives outside an adapter.
 */
import type { ClaimingWorker, WorkerCoordination } from "./coordination.js";
import type {
  ApiToken,
  Application,
  Attempt,
  AttemptTrigger,
  CircuitRecord,
  DeadLetter,
  DeadLetterOverflow,
  DeadLetterRecord,
  DeadLetterState,
  Delivery,
  DeliveryState,
  Endpoint,
  EndpointStats,
  EventType,
  FailureClass,
  Message,
  ReplayJob,
  ReplayJobState,
  ReplaySelection,
  RetryAfterUse,
  AttemptBucket,
} from "../domain/types.js";
import type { CircuitTransition } from "../engine/breaker.js";

/** Cursor pagination as the Svix API does it: `iterator` is the last id of the previous page. */
export interface PageQuery {
  limit: number;
  iterator?: string | null;
  order?: "ascending" | "descending";
}

/** One batch of re-sealing with the current key (key rotation): a table, walked in key order. */
export interface ResealRequest {
  table: "endpoints" | "messages" | "idempotency_keys";
  /** Rows after this cursor (an id; the adapter's own for idempotency keys); "" to start. */
  afterId: string;
  limit: number;
}

/** What one re-sealing batch did; `lastId` is null once the table has been walked. */
export interface ResealProgress {
  lastId: string | null;
  scanned: number;
  rewritten: number;
}

export interface Page<T> {
  data: T[];
  iterator: string | null;
  done: boolean;
}

/** Which applications a list leaves out, by their endpoints. */
export interface ApplicationFilter {
  /** Leave out applications that have no endpoint. */
  excludeWithNoEndpoints?: boolean;
  /** Leave out applications that have endpoints, all of them disabled. */
  excludeWithOnlyDisabledEndpoints?: boolean;
}

/** Which messages a list takes, by the message's own fields; every one given must match. */
export interface MessageFilter {
  /** Any of these event types. */
  eventTypes?: string[];
  /** One of the message's channels. */
  channel?: string;
  /** One of the message's tags. */
  tag?: string;
}

export interface MessageQuery extends PageQuery, MessageFilter {
  before?: number;
  after?: number;
}

/** Attempts, filtered by their own fields and by their message's (MessageFilter). */
export interface AttemptQuery extends PageQuery, MessageFilter {
  appId: string;
  endpointId?: string;
  messageId?: string;
  /** Svix status number: 0 success, 2 fail. */
  outcome?: "success" | "fail";
  /** Svix status code class: 0, no HTTP answer at all; 100 to 500, a status in that hundred. */
  statusCodeClass?: 0 | 100 | 200 | 300 | 400 | 500;
  before?: number;
  after?: number;
}

/** Which of an endpoint's messages `Store.listEndpointMessages` lists. */
export interface EndpointMessageQuery extends PageQuery, MessageFilter {
  appId: string;
  endpointId: string;
  /** Only those whose latest delivery to the endpoint is in this state. */
  state?: DeliveryState;
  /** Created before, after this time. */
  before?: number;
  after?: number;
}

/** A message sent to an endpoint, with where its latest delivery there stands. */
export interface EndpointMessage {
  message: Message;
  state: DeliveryState;
  /** When it is tried next, if it is pending. */
  nextAttemptAt: number | null;
}

/** Which of an endpoint's messages `Store.endpointMessageStates` counts. */
export interface MessageStateQuery {
  endpointId: string;
  since?: number;
  until?: number;
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
  /** The time the caller asked for (MessageIn.deliverAt), kept on the message; none: null. */
  deliverAt?: number | null;
  /** Makes a delivery id; called once per chosen endpoint. */
  newDeliveryId: () => string;
  /** Only this endpoint may receive it (a test event sent to one endpoint). */
  onlyEndpointId?: string;
  /** The engine, offering to take deliveries it would send at once (see `Intake`). */
  intake?: Intake;
}

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
  /** The worker that claimed it (see {@link ClaimedDelivery}): only its claim is moved on. */
  claimedBy?: string;
}

/** One attempt-less state change: a delivery put back (shutdown, paused circuit). */
export interface Release {
  deliveryId: string;
  at: number;
  /** The worker that claimed it (see {@link ClaimedDelivery}): only its claim is put back. */
  claimedBy?: string;
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

/** Limits an adapter enforces as it writes; set once when the store is opened. */
export interface StoreLimits {
  /**
   * Open (or replaying) dead-letter records one endpoint may have. A dead letter beyond it is not
   * kept as a record: a tombstone and a counter say so (docs/architecture.md, "Depth cap").
   */
  maxOpenDeadLettersPerEndpoint: number;
}

/** The limits of a store opened without any (HOOKLINE_DLQ_MAX_PER_ENDPOINT's default). */
export const DEFAULT_STORE_LIMITS: Readonly<StoreLimits> = Object.freeze({
  maxOpenDeadLettersPerEndpoint: 10_000,
});

/** What recording outcomes (or a person) did to the dead-letter queue; announced once committed. */
export interface DeadLetterChange {
  kind: "recorded" | "overflowed" | "replay_succeeded" | "replay_failed" | "resolved" | "abandoned";
  /** The record's id (for `overflowed`, the tombstone's). */
  deadLetterId: string;
  appId: string;
  endpointId: string;
  /** The delivery whose outcome caused the change, if any. */
  deliveryId: string | null;
  actor: string;
  at: number;
  detail: string;
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

export interface DeadLetterQuery extends PageQuery {
  appId?: string;
  endpointId?: string;
  states?: DeadLetterState[];
  failureClass?: DeadLetter["failureClass"];
  eventType?: string;
  /** Dead-lettered at or after. */
  since?: number;
  /** Dead-lettered before. */
  until?: number;
}

/**
 * Open records of one endpoint and failure class, with what tells whether the endpoint is back; or,
 * for an endpoint with nothing open whose overflow tombstones are still kept, one row with no
 * class and no records, so that its overflow stays in sight.
 */
export interface DeadLetterSummaryRow {
  appId: string;
  endpointId: string;
  /** Null on an endpoint's row with nothing open. */
  failureClass: DeadLetter["failureClass"] | null;
  open: number;
  replaying: number;
  /** When the oldest of these records was dead-lettered; null with nothing open. */
  oldestAt: number | null;
  lastSuccessAt: number | null;
  /** The persisted circuit (the API prefers the engine's live one). */
  circuit: CircuitRecord | null;
  /** Open and replaying records of the endpoint, all classes: what the depth cap counts. */
  depth: number;
  overflowed: number;
  lastOverflowAt: number | null;
}

/** A person's (or a job's) request to replay one record. */
export interface ReplayRequest {
  deadLetterId: string;
  /** The id of the replay delivery to create. */
  deliveryId: string;
  now: number;
  actor: string;
  note: string | null;
  /** Failed replays in a row after which the record is abandoned; null: never. */
  abandonAfter: number | null;
}

/** A replay was queued, or why not: no such record (null), or its state forbids it. */
export type ReplayEnqueued =
  { ok: true; delivery: Delivery; record: DeadLetter } | { ok: false; record: DeadLetter | null };

/** A person closing a record, with their note. */
export interface DeadLetterDecision {
  id: string;
  actor: string;
  note: string;
  now: number;
}

/** The record after a decision, or why it was refused: no such record (null), or its state. */
export type DeadLetterDecided =
  { ok: true; record: DeadLetter } | { ok: false; record: DeadLetter | null };

export interface NewReplayJob {
  id: string;
  task: ReplayJob["task"];
  selection: ReplaySelection;
  ratePerSecond: number;
  canarySize: number;
  canaryThreshold: number;
  startAt: number;
  createdBy: string;
  note: string | null;
  now: number;
}

/** What one step of a job queued: the replays handed to the engine and the records skipped. */
export interface JobReplaysQueued {
  queued: { deadLetterId: string; deliveryId: string; endpointId: string }[];
  skipped: number;
  /** Items still waiting to be queued after this step. */
  remaining: number;
}

/**
 * A running job's change of stage or end, with its lease renewed (or handed back, with
 * `leaseUntil` now). Applied only while `runner` still holds the job.
 */
export interface ReplayJobUpdate {
  id: string;
  /** The runner holding the job (see `claimReplayJobs`). */
  runner: string;
  now: number;
  leaseUntil: number;
  stage?: ReplayJob["stage"];
  /** Ends the job. */
  finish?: { state: Extract<ReplayJobState, "completed" | "stopped">; reason: string | null };
  /** Why it is waiting (e.g. for the canary), shown with its progress. */
  reason?: string | null;
}

/** What one pruning step deleted; `done` once nothing was left to prune. */
export interface PruneResult {
  deadLetters: number;
  overflow: number;
  replayJobs: number;
  messages: number;
  idempotencyKeys: number;
  /** Endpoints' circuit history; each circuit's current state stays. */
  circuitTransitions: number;
  done: boolean;
}

// ---- observability ----------------------------------------------------------------------------

/** The backlog and the dead-letter queue as gauges: what metrics, alerts and the dashboard read. */
export interface BacklogSnapshot {
  /** Pending deliveries, due or not. */
  pending: number;
  /** When the longest-waiting pending delivery due by `now` fell due, or null. */
  oldestDueAt: number | null;
  /** Open and replaying dead-letter records. */
  deadLetters: number;
  /** When the oldest open or replaying record was dead-lettered, or null. */
  oldestDeadLetterAt: number | null;
  /** Endpoints with open records, deepest first, at most `endpointLimit` of them. */
  byEndpoint: { endpointId: string; deadLetters: number; oldestDeadLetterAt: number }[];
}

/** An alert as kept across restarts: firing while `resolvedAt` is null. */
export interface AlertRecord {
  id: string;
  rule: string;
  severity: "warning" | "critical";
  summary: string;
  endpointId: string | null;
  value: number;
  threshold: number;
  since: number;
  resolvedAt: number | null;
  /**
   * Set when the alert was resolved because another alert carries on the same condition (two
   * workers' alerts for it became one when one of the workers left), not because it ended.
   */
  supersededBy: string | null;
}

/** What `saveAlerts` writes: the alerts `holder` evaluates, and how old a resolved one may be. */
export interface AlertSave {
  holder: string;
  alerts: readonly AlertRecord[];
  forgetResolvedBefore: number;
}

/** One step of a failure drill and how long it took. */
export interface DrillStep {
  name: string;
  passed: boolean;
  ms: number;
  detail: string;
}

/** A failure drill's result, as recorded. */
export interface DrillRun {
  id: string;
  trigger: "manual" | "schedule";
  startedAt: number;
  finishedAt: number;
  passed: boolean;
  steps: DrillStep[];
}

export interface Store {
  readonly kind: "sqlite" | "postgres";
  /** Present when several processes may share the store (see coordination.ts). */
  readonly coordination: WorkerCoordination | null;
  close(): Promise<void>;
  /**
   * Opens the newest sealed endpoint and message with the configured keys; throws ConfigError
   * naming the missing key when they cannot be, so a wrong key stops start-up.
   */
  verifySealing(): Promise<void>;
  /** Re-seals one batch of rows that are not sealed with the current key (see ResealRequest). */
  resealBatch(req: ResealRequest): Promise<ResealProgress>;
  /** Throws StoreUnavailableError when the store cannot be used. */
  ping(): Promise<void>;

  createApplication(app: Application): Promise<Application>;
  findApplication(idOrUid: string): Promise<Application | null>;
  listApplications(q: PageQuery & ApplicationFilter): Promise<Page<Application>>;
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
  /**
   * The messages sent to an endpoint, newest first unless `order` says otherwise, each with its
   * latest delivery there (a resend's or a replay's, if any).
   */
  listEndpointMessages(q: EndpointMessageQuery): Promise<Page<EndpointMessage>>;
  /**
   * A new delivery of an existing message to one endpoint, due now (a manual resend); null, and
   * nothing written, if the message is gone (retention may take it between the caller's read and
   * this write). Retention never takes a message whose resend is being written.
   */
  enqueueResend(input: {
    id: string;
    appId: string;
    messageId: string;
    endpointId: string;
    now: number;
  }): Promise<Delivery | null>;

  /** Puts every claimed delivery back to pending, due at `now` (a single-node start after a crash). */
  recoverInflight(now: number): Promise<number>;
  /**
   * Claims up to `limit` pending deliveries due by `now`, oldest due first, skipping the listed
   * endpoints, in one atomic statement; they stay claimed until recorded or released.
   * `endpointId` claims only that endpoint's rows, through its own index, at a cost that depends
   * on the batch and not on the backlog.
   */
  claimDue(req: ClaimRequest & { endpointId?: string }): Promise<ClaimedDelivery[]>;
  /**
   * The engine's scan: claims as `claimDue` does, walking due order from `from` (so a scan never
   * walks again over rows it stepped past), and says where the walk stopped. A store may walk a
   * bounded window per call, so that stepping past a full endpoint's backlog never holds its
   * thread for long; when a window ends before the batch fills, the engine looks on by endpoint
   * (`dueEndpoints`) rather than walking the next window.
   */
  scanDue(req: ClaimRequest & { from: ScanPosition }): Promise<ScanResult>;
  /**
   * The endpoints outside `excludeEndpoints` that have a pending delivery due by `now`, looked
   * at endpoint by endpoint: the engine's way on when a scan's window filled up with a full
   * endpoint's backlog. Its cost follows the number of endpoints with pending deliveries, not the
   * length of anyone's backlog. A store may look at a bounded window of endpoints per call; the
   * engine then goes on after `reached`.
   */
  dueEndpoints(req: DueEndpointsRequest): Promise<DueEndpoints>;
  /**
   * The earliest due time of a pending delivery outside the listed endpoints, or null; with
   * `after`, only among deliveries due strictly after it.
   */
  nextDueAt(excludeEndpoints: readonly string[], after?: number): Promise<number | null>;
  /**
   * Records attempts and moves their deliveries on (succeeded, retry, dead-lettered), atomically.
   * A dead delivery becomes a dead-letter record (or, at its endpoint's depth cap, a tombstone);
   * a replay delivery's outcome updates the record it replays instead. An outcome of a delivery
   * its sender no longer holds changes nothing. Returns the outcomes kept and those changes.
   */
  recordAttempts(outcomes: readonly DeliveryOutcome[]): Promise<RecordedOutcomes>;
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
  /**
   * The endpoint's attempts at or after `since`, counted in buckets of `bucketMs` aligned to the
   * epoch, oldest first; empty buckets are left out.
   */
  attemptBuckets(q: {
    endpointId: string;
    since: number;
    bucketMs: number;
  }): Promise<AttemptBucket[]>;
  /**
   * How many of the messages sent to an endpoint stand in each delivery state, each message
   * counted once by its latest delivery there (a resend's or a replay's, if any): those created
   * at or after `since` and before `until`.
   */
  endpointMessageStates(q: MessageStateQuery): Promise<Record<DeliveryState, number>>;
  /**
   * Where each of these messages of the application stands at its endpoints: how many endpoints
   * its latest delivery to each (a resend's or a replay's, if any) leaves in each state; all zero
   * for a message that went nowhere (or is not the application's). One query for the whole list,
   * through the messages' own deliveries, however many messages or endpoints there are.
   */
  messageDeliveryStates(
    appId: string,
    messageIds: readonly string[],
  ): Promise<Map<string, Record<DeliveryState, number>>>;

  listAttempts(q: AttemptQuery): Promise<Page<Attempt>>;
  findAttempt(appId: string, attemptId: string): Promise<Attempt | null>;

  // ---- the dead-letter queue ----------------------------------------------------------------

  /** Records matching every given filter, oldest first unless `order` says otherwise. */
  listDeadLetters(q: DeadLetterQuery): Promise<Page<DeadLetter>>;
  /** One record, without its payload, attempts and history. */
  getDeadLetter(id: string): Promise<DeadLetter | null>;
  /** The record of the delivery that was given up on (not of its replays), or null. */
  findDeadLetterByDelivery(deliveryId: string): Promise<DeadLetter | null>;
  /** The whole record: payload, attempts of the original delivery and of every replay, history. */
  getDeadLetterRecord(id: string): Promise<DeadLetterRecord | null>;
  /**
   * Open and replaying records grouped by endpoint and failure class, oldest group first; then a
   * row for each endpoint with nothing open whose overflow tombstones are still kept.
   */
  deadLetterSummary(q: { appId?: string }): Promise<DeadLetterSummaryRow[]>;
  /** Tombstones of dead letters not kept because of the depth cap, newest first. */
  listDeadLetterOverflow(
    q: PageQuery & { appId?: string; endpointId?: string },
  ): Promise<Page<DeadLetterOverflow>>;
  /**
   * Atomically moves an open or resolved record to `replaying` and queues one replay delivery of
   * it (due at once, or at the probe if its endpoint's circuit is open). A second call while the
   * first replay is out is refused, however close together they come.
   */
  enqueueReplay(req: ReplayRequest): Promise<ReplayEnqueued>;
  /** open or abandoned → resolved, with the person's note. */
  resolveDeadLetter(req: DeadLetterDecision): Promise<DeadLetterDecided>;
  /** open → abandoned, with the person's note. */
  abandonDeadLetter(req: DeadLetterDecision): Promise<DeadLetterDecided>;

  // ---- bulk replay jobs ---------------------------------------------------------------------

  createReplayJob(job: NewReplayJob): Promise<ReplayJob>;
  getReplayJob(id: string): Promise<ReplayJob | null>;
  /** Jobs, newest first by default, a page at a time. */
  listReplayJobs(q: PageQuery): Promise<Page<ReplayJob>>;
  /**
   * Takes up to `limit` jobs to run: scheduled ones now due (they become running) and running
   * ones nobody holds (lease expired or released); leases them to `runner` until `leaseUntil`.
   * A job taken up this way is no longer its previous runner's: that runner's updates and
   * queueing are refused from then on, so a runner that stalled past its lease cannot go on
   * beside the one that took over.
   */
  claimReplayJobs(req: {
    now: number;
    leaseUntil: number;
    limit: number;
    runner: string;
  }): Promise<ReplayJob[]>;
  /** Drops every running job's lease, so this process takes them up again (single-node start). */
  releaseReplayJobs(): Promise<void>;
  /** The earliest start of a scheduled job, or null. */
  nextReplayJobAt(): Promise<number | null>;
  /**
   * Takes the job's selection once: the matching records become its items (each record at most
   * once). Calling it again changes nothing.
   */
  prepareReplayJob(id: string, now: number): Promise<ReplayJob | null>;
  /**
   * Queues replays for the job's next `limit` waiting items, in order, each at most once ever;
   * items whose record is no longer open are skipped. Does nothing unless the job is running and
   * `runner` holds it.
   */
  enqueueJobReplays(req: {
    jobId: string;
    runner: string;
    limit: number;
    now: number;
    abandonAfter: number | null;
    newDeliveryId: () => string;
  }): Promise<JobReplaysQueued>;
  /**
   * Renews a running job's lease and applies the update; null when the job is no longer running
   * or no longer the runner's (another took it up once its lease had run out).
   */
  updateReplayJob(update: ReplayJobUpdate): Promise<ReplayJob | null>;
  /**
   * Cancels a scheduled or running job: no more replays are queued, and queued ones not yet sent
   * are withdrawn (their records go back to open). Replays already in flight finish.
   */
  cancelReplayJob(req: {
    id: string;
    actor: string;
    now: number;
  }): Promise<{ ok: true; job: ReplayJob } | { ok: false; job: ReplayJob | null }>;

  // ---- API tokens --------------------------------------------------------------------------

  /** Stores a token (already hashed); a second token with the same hash is a ConflictError. */
  createApiToken(token: ApiToken): Promise<ApiToken>;
  /** The token with this hex SHA-256, revoked or not, or null. */
  findApiTokenByHash(hash: string): Promise<ApiToken | null>;
  /** Every token, revoked ones too, oldest first. */
  listApiTokens(): Promise<ApiToken[]>;
  /** Marks a token revoked at `now` (a second revocation keeps the first time); null if unknown. */
  revokeApiToken(id: string, now: number): Promise<ApiToken | null>;

  // ---- retention ----------------------------------------------------------------------------

  /**
   * Deletes one small batch of what has outlived `retentionMs`: resolved and abandoned records
   * closed before the cutoff, overflow tombstones, finished replay jobs, messages no delivery or
   * record still needs (with their deliveries and attempts), expired idempotency keys. One
   * transaction per call; call again until `done`.
   */
  pruneExpired(req: { now: number; retentionMs: number; batchSize: number }): Promise<PruneResult>;

  // ---- observability ------------------------------------------------------------------------

  /** Gauges of the backlog and the dead-letter queue at `now` (see {@link BacklogSnapshot}). */
  backlogSnapshot(req: { now: number; endpointLimit: number }): Promise<BacklogSnapshot>;
  /**
   * Writes the alerts `holder` (a worker, or the one process) evaluates: inserts new ones, and
   * updates by id those it holds; forgets alerts resolved before `forgetResolvedBefore`. Returns
   * the ids it did not write because another worker holds them now (it took them on after
   * `holder` was declared dead).
   */
  saveAlerts(req: AlertSave): Promise<string[]>;
  /**
   * Takes on, for `holder`, the firing alerts no running worker evaluates and returns them. On a
   * store several workers share: alerts of workers that left (stopped, or declared dead and
   * reaped), an endpoint's alert only if no other worker owns the endpoint (its owner sees its
   * traffic); each is taken by one caller, however many ask at once. On a store one process
   * serves: every firing alert that `holder` does not hold (it is from before a restart).
   */
  adoptAlerts(holder: string): Promise<AlertRecord[]>;
  /** Firing alerts and those resolved at or after `resolvedSince`, newest first. */
  listAlerts(q: { resolvedSince: number }): Promise<AlertRecord[]>;
  /** Records a drill's result, keeping the latest `keep` runs. */
  recordDrillRun(run: DrillRun, keep: number): Promise<void>;
  /** The latest drill runs, newest first. */
  listDrillRuns(limit: number): Promise<DrillRun[]>;
  /** When the last passing drill started, or null. */
  lastPassedDrillAt(): Promise<number | null>;
}

export type { AttemptTrigger };
