/**
 * The storage port: the domain operations hookline needs from a database, and nothing generic.
 * Both adapters (SQLite and PostgreSQL) implement it and pass the same behavioural suite
 * (test/store/behaviour/). No SQL lives outside an adapter. The types its operations take
 * and return live beside it in port/, by what they are about, and are exported from here.
 */
import type { WorkerCoordination } from "./coordination.js";
import type {
  ApiToken,
  Application,
  Attempt,
  AttemptTrigger,
  CircuitRecord,
  DeadLetter,
  DeadLetterOverflow,
  DeadLetterRecord,
  Delivery,
  DeliveryState,
  Endpoint,
  EndpointStats,
  EventType,
  Message,
  ReplayJob,
  AttemptBucket,
} from "../domain/types.js";
import type { CircuitTransition } from "../engine/breaker.js";
import type { RetryLadder } from "../engine/ladder.js";
import type {
  ApiTokenQuery,
  ApplicationFilter,
  AttemptQuery,
  ContentQuery,
  EndpointMessage,
  EndpointMessageQuery,
  EventTypeQuery,
  MessageQuery,
  MessageStateQuery,
  Page,
  PageQuery,
} from "./port/queries.js";
import type {
  AcceptResult,
  ClaimRequest,
  ClaimedDelivery,
  DeliveryOutcome,
  DueEndpoints,
  DueEndpointsRequest,
  KeptAnswer,
  NewMessage,
  RecordedOutcomes,
  Release,
  ScanPosition,
  ScanResult,
} from "./port/deliveries.js";
import type {
  DeadLetterDecided,
  DeadLetterDecision,
  DeadLetterQuery,
  DeadLetterSummaryRow,
  JobReplaysOut,
  JobReplaysQueued,
  JobSkips,
  NewReplayJob,
  PruneResult,
  ReplayEnqueued,
  ReplayJobCancelled,
  ReplayJobCreated,
  ReplayJobFinish,
  ReplayJobFinished,
  ReplayJobUpdate,
  ReplayRequest,
} from "./port/dead-letters.js";
import type { AlertRecord, AlertSave, BacklogSnapshot, DrillRun } from "./port/observability.js";
export * from "./port/queries.js";
export * from "./port/deliveries.js";
export * from "./port/dead-letters.js";
export * from "./port/observability.js";

/** One batch of re-sealing with the current key (key rotation): a table, walked in key order. */
/** What `pauseEndpoint` asks of an endpoint's delivery policy: its attempts and retry window. */
export type PauseLadder = Pick<RetryLadder, "attempts" | "windowMs">;

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

/**
 * A key as one request holds it. `owner` is that request's own token: a request that ran past its
 * lock has lost the key to a repeat, and what it writes then must not land on the repeat's.
 */
export interface HeldIdempotencyKey {
  scope: string;
  key: string;
  owner: string;
}

export interface IdempotencyBegin extends HeldIdempotencyKey {
  fingerprint: string;
  now: number;
  /** How long a started-but-unfinished request blocks others with the same key. */
  lockMs: number;
  ttlMs: number;
}

/**
 * Idempotency keys picked by their scope: those whose scope is one of `exact`, or begins with one
 * of `prefixes`.
 */
export interface IdempotencyScopes {
  exact: readonly string[];
  prefixes: readonly string[];
}

/**
 * The idempotency keys an endpoint's change forgets, told the ids of its application's tokens
 * (read in the change's transaction): each token's keys are its own, and a token outlives the
 * endpoints it reached.
 */
export interface EndpointKeys {
  /**
   * The time of the change: a token expired by then is refused, so its keys can answer no one
   * and it is not read (an application may hold thousands, one per portal link).
   */
  now: number;
  /** The scopes to forget, told the ids of the application's unrevoked, unexpired tokens. */
  scopes(appTokenIds: readonly string[]): IdempotencyScopes;
}

/** Why nothing is sent to an endpoint any more (see Store.listStoppedEndpoints). */
export type EndpointStopped = "disabled" | "deleted";

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

export interface Store {
  readonly kind: "sqlite" | "postgres";
  /** Present when several processes may share the store (see coordination.ts). */
  readonly coordination: WorkerCoordination | null;
  close(): Promise<void>;
  /**
   * Opens the newest sealed endpoint and message, and the oldest message still to be sent, with
   * the configured keys, and checks every endpoint's key; throws ConfigError naming the missing
   * key when one is not configured, so a wrong key, or an old one removed too early, stops start-up.
   */
  verifySealing(): Promise<void>;
  /** Re-seals one batch of rows that are not sealed with the current key (see ResealRequest). */
  resealBatch(req: ResealRequest): Promise<ResealProgress>;
  /** Throws StoreUnavailableError when the store cannot be used. */
  ping(): Promise<void>;

  /** `keyAnswer`: the keyed post's answer, kept in the same transaction (see `KeptAnswer`). */
  createApplication(app: Application, keyAnswer?: KeptAnswer<Application>): Promise<Application>;
  findApplication(idOrUid: string): Promise<Application | null>;
  listApplications(q: PageQuery & ApplicationFilter): Promise<Page<Application>>;
  /**
   * Writes `app` over the stored one, as {@link updateEndpoint} does an endpoint; when it does,
   * deletes in the same transaction the idempotency keys `forget` picks (those taken under a uid
   * the application gives up), so none answers for the application that takes the uid next.
   */
  updateApplication(
    app: Application,
    seenAt?: number,
    forget?: IdempotencyScopes | null,
  ): Promise<boolean>;
  /**
   * Deletes the application with everything it has, and in the same transaction the idempotency
   * keys `forget` picks (those of the paths that named it), so none answers for an application
   * made later with its uid.
   */
  deleteApplication(id: string, forget?: IdempotencyScopes): Promise<void>;

  /** `keyAnswer`: the keyed post's answer, kept in the same transaction (see `KeptAnswer`). */
  createEndpoint(ep: Endpoint, keyAnswer?: KeptAnswer<Endpoint>): Promise<Endpoint>;
  findEndpoint(appId: string, idOrUid: string): Promise<Endpoint | null>;
  getEndpoint(id: string): Promise<Endpoint | null>;
  /**
   * The stored endpoints of `ids`, in one read whatever their number (ids of none are left out,
   * in no given order): a message's destinations show a page of up to 250.
   */
  getEndpoints(ids: string[]): Promise<Endpoint[]>;
  /**
   * Of `ids`, those nothing is sent to any more: disabled, or deleted (no longer stored), in one
   * read of ids alone whatever their number. The alert evaluator leaves them out.
   */
  listStoppedEndpoints(ids: string[]): Promise<Map<string, EndpointStopped>>;
  listEndpoints(appId: string, q: PageQuery): Promise<Page<Endpoint>>;
  /**
   * Writes `ep` over the stored endpoint; false when there is none. With `seenAt`, the
   * `updatedAt` it was read with, only while the stored one still has it (false when another
   * write came in between), so a read-modify-write never undoes a change it did not see. When it
   * writes, it deletes in the same transaction the idempotency keys `forget` picks (those taken
   * under a uid the endpoint gives up), as {@link deleteEndpoint} does.
   */
  updateEndpoint(ep: Endpoint, seenAt?: number, forget?: EndpointKeys | null): Promise<boolean>;
  /**
   * Deletes the endpoint with everything it has, and in the same transaction the idempotency keys
   * `forget` picks (those of the paths that named it), so none answers for an endpoint made later
   * with its uid.
   */
  deleteEndpoint(appId: string, id: string, forget?: EndpointKeys): Promise<void>;
  /**
   * Removes every row left of an endpoint that no longer exists, as its deletion does; nothing if
   * it exists. On PostgreSQL a message accepted while its endpoint was being deleted can commit a
   * delivery after the deletion took the endpoint's deliveries: the engine, finding no endpoint
   * for a delivery it claimed, calls this so the delivery is not claimed again on every start.
   */
  clearDeletedEndpoint(id: string): Promise<void>;

  createEventType(et: EventType): Promise<EventType>;
  findEventType(name: string): Promise<EventType | null>;
  listEventTypes(q: EventTypeQuery): Promise<Page<EventType>>;
  /**
   * Writes `et` over the stored one, as {@link updateEndpoint} does an endpoint, forgetting in
   * the same transaction the idempotency keys `forget` picks when it does (an archive forgets
   * its creation's, so that a create with the key brings it back).
   */
  updateEventType(
    et: EventType,
    seenAt?: number,
    forget?: IdempotencyScopes | null,
  ): Promise<boolean>;
  /** Deletes the event type for good, with the idempotency keys `forget` picks (its creation's). */
  deleteEventType(name: string, forget?: IdempotencyScopes): Promise<void>;

  beginIdempotent(req: IdempotencyBegin): Promise<IdempotencyState>;
  /** Keeps the answer for repeats; false, writing nothing, once another request holds the key. */
  finishIdempotent(held: HeldIdempotencyKey, status: number, body: string): Promise<boolean>;
  /**
   * Frees the key for a repeat to run; false, freeing nothing, once another request holds it, or
   * once a write kept this request's answer on it (see `KeptAnswer`): what that write made is
   * answered by it, whatever became of the request after.
   */
  abandonIdempotent(held: HeldIdempotencyKey): Promise<boolean>;

  /**
   * Stores the message and one pending delivery per matching enabled endpoint, in one transaction
   * that is committed before this resolves. A repeated eventId writes nothing.
   */
  acceptMessage(msg: NewMessage): Promise<AcceptResult>;
  findMessage(appId: string, idOrEventId: string): Promise<Message | null>;
  /**
   * The application's messages with these ids (not eventIds), in one read however many: a page's
   * messages at once. Ids it does not have are left out; the order is the store's. Without
   * content (`withContent: false`) no payload is read: each is empty.
   */
  findMessages(
    appId: string,
    ids: readonly string[],
    content?: Pick<ContentQuery, "withContent">,
  ): Promise<Message[]>;
  /**
   * The stored size of each of these messages' payloads, by id, read without the payloads: a page
   * of attempts with their messages is bounded by these before any payload is read. Ids the
   * application does not have are left out.
   */
  messagePayloadBytes(appId: string, ids: readonly string[]): Promise<Map<string, number>>;
  /**
   * An application's messages, newest first unless `order` says otherwise. Payloads are read only
   * with content, and only those of the page as `maxPayloadBytes` bounds it.
   */
  listMessages(appId: string, q: MessageQuery): Promise<Page<Message>>;
  /**
   * The messages sent to an endpoint, newest first unless `order` says otherwise, each with its
   * latest delivery there (a resend's or a replay's, if any); payloads as `listMessages` reads them.
   */
  listEndpointMessages(q: EndpointMessageQuery): Promise<Page<EndpointMessage>>;
  /**
   * A manual resend of an existing message to one endpoint, due now: the message's delivery to
   * that endpoint still waiting (for a retry or its later time; not a replay, not one in flight)
   * brought forward, or else a new delivery. Bringing it forward keeps a resend from sending the
   * message twice, once now and once more when the waiting retry's time came. Null, and nothing
   * written, if the message or the endpoint is gone (retention or a deletion may take it between
   * the caller's read and this write). Retention never takes a message whose resend is being
   * written, and a deletion of its endpoint takes the resend along. `keyAnswer`: the keyed post's
   * answer, kept in the same transaction (see `KeptAnswer`), told null when nothing was written.
   */
  enqueueResend(input: {
    id: string;
    appId: string;
    messageId: string;
    endpointId: string;
    now: number;
    keyAnswer?: KeptAnswer<Delivery | null>;
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
  /**
   * Moves every pending delivery of an endpoint due before `until` to `until` (circuit open),
   * except a retry that `ladder` leaves no attempt for there (its attempts spent, or its retry
   * window ending before `until`): that keeps its own time, when the engine gives it up unsent,
   * rather than waiting for the probe only to be given up then.
   */
  pauseEndpoint(endpointId: string, until: number, ladder: PauseLadder): Promise<number>;
  getDelivery(id: string): Promise<Delivery | null>;
  listDeliveries(messageId: string): Promise<Delivery[]>;

  saveCircuit(
    endpointId: string,
    snapshot: CircuitRecord,
    transition: CircuitTransition | null,
  ): Promise<void>;
  getCircuit(endpointId: string): Promise<CircuitRecord | null>;
  /**
   * An open circuit's next probe brought forward to `at`, with the deliveries held for it (those
   * due after `at` up to the probe) due at `at` too: a person changed where the endpoint is sent
   * to, so what failed before says little of what comes now. False, and nothing changed, when the
   * circuit is not open or its probe is due by `at` already.
   */
  bringProbeForward(endpointId: string, at: number): Promise<boolean>;
  /**
   * Circuits not closed (open or half-open) of endpoints that exist and are not disabled: those
   * down. Most recently changed first, at most `limit`.
   */
  listUnclosedCircuits(limit: number): Promise<{ endpointId: string; circuit: CircuitRecord }[]>;
  listCircuitTransitions(
    endpointId: string,
    limit: number,
  ): Promise<(CircuitTransition & { endpointId: string })[]>;
  getEndpointStats(endpointId: string): Promise<EndpointStats>;
  /**
   * The stored circuits of `endpointIds`, in one read whatever their number; one never written
   * is not in the map.
   */
  getCircuits(endpointIds: string[]): Promise<Map<string, CircuitRecord>>;
  /**
   * The stored circuit (null: never written) and stats of each of `endpointIds`, in two reads
   * whatever their number: a page of endpoints shows both for every row.
   */
  getEndpointsHealth(
    endpointIds: string[],
  ): Promise<Map<string, { circuit: CircuitRecord | null; stats: EndpointStats }>>;
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
   * How many of the endpoint's deliveries wait now (for a retry, their `deliverAt`, an open
   * circuit), whatever their message's age, counted up to `atMost` and no further: read through
   * the index of pending deliveries by endpoint, so a backlog of millions costs `atMost` entries.
   */
  countWaitingDeliveries(endpointId: string, atMost: number): Promise<number>;
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
  /**
   * Why hookline gave up on each of these deliveries of one message, by delivery id: as its record
   * says or, past the depth cap, its tombstone; for a replay that ended without a request, why, as
   * its record's history says ("endpoint disabled"); one with none of these is left out. Read by
   * the deliveries, whatever the records around them.
   */
  deadLetterReasons(
    messageId: string,
    deliveryIds: readonly string[],
  ): Promise<Map<string, string>>;
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
   * first replay is out is refused, however close together they come. `keyAnswer`: the keyed
   * post's answer, kept in the same transaction (see `KeptAnswer`).
   */
  enqueueReplay(
    req: ReplayRequest,
    keyAnswer?: KeptAnswer<ReplayEnqueued>,
  ): Promise<ReplayEnqueued>;
  /** open or abandoned → resolved, with the person's note. */
  resolveDeadLetter(req: DeadLetterDecision): Promise<DeadLetterDecided>;
  /** open → abandoned, with the person's note. */
  abandonDeadLetter(req: DeadLetterDecision): Promise<DeadLetterDecided>;

  // ---- bulk replay jobs ---------------------------------------------------------------------

  /**
   * Creates a scheduled job, unless a scheduled or running job may replay to an endpoint this one
   * may replay to: each keeps its own rate, and together they would exceed either. An endpoint is
   * a job's when its selection names it, or when records of it that the job would take (or, once
   * it started, has yet to finish with) are open or being replayed. Two calls at once are one
   * after the other.
   */
  createReplayJob(job: NewReplayJob): Promise<ReplayJobCreated>;
  getReplayJob(id: string): Promise<ReplayJob | null>;
  /** Jobs a page at a time, oldest first unless `order` says otherwise (the API asks newest). */
  listReplayJobs(q: PageQuery): Promise<Page<ReplayJob>>;
  /**
   * Takes up to `limit` jobs to run: scheduled ones now due (they become running, without the
   * reason they waited for) and running ones nobody holds (lease expired or released); leases them
   * to `runner` until `leaseUntil`.
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
   * A runner with no room for another job: gives `reason` (why they wait) to the scheduled jobs
   * due by `now` that carry none, so a job's wait is written once, as it begins, not at every
   * look; taking a job up clears it. Returns the earliest start of a scheduled job after `now`
   * (when the next one comes due, to be told too), or null.
   */
  noteReplayJobsWaiting(req: { now: number; reason: string }): Promise<number | null>;
  /**
   * Takes the job's selection once: the matching records become its items (each record at most
   * once). Calling it again changes nothing, nor does calling it for a job no longer running.
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
   * Ends a running job the runner holds (null, as for an update, when it no longer does). Its
   * replays queued but not yet sent are withdrawn, as cancelling does, each with its change.
   */
  finishReplayJob(finish: ReplayJobFinish): Promise<ReplayJobFinished | null>;
  /**
   * The endpoints a job has replays out to (queued, result not in), with how many, by endpoint
   * id: where the job waits, and whose circuits may hold it.
   */
  replayJobEndpointsOut(jobId: string): Promise<JobReplaysOut[]>;
  /** Why a job skipped the records it skipped: each reason with its count, the commonest first. */
  replayJobSkips(jobId: string): Promise<JobSkips[]>;
  /**
   * Cancels a scheduled or running job: no more replays are queued, and queued ones not yet sent
   * are withdrawn (their records go back to open), each with its `replay_withdrawn` change to
   * announce. Replays already in flight finish.
   */
  cancelReplayJob(req: { id: string; actor: string; now: number }): Promise<ReplayJobCancelled>;

  // ---- API tokens --------------------------------------------------------------------------

  /** Stores a token (already hashed); a second token with the same hash is a ConflictError. */
  /** `keyAnswer`: the keyed post's answer, kept in the same transaction (see `KeptAnswer`). */
  createApiToken(token: ApiToken, keyAnswer?: KeptAnswer<ApiToken>): Promise<ApiToken>;
  /** The token with this hex SHA-256, revoked or not, or null. */
  findApiTokenByHash(hash: string): Promise<ApiToken | null>;
  /** A page of tokens, revoked ones too unless asked, oldest first unless asked. */
  listApiTokens(q: ApiTokenQuery): Promise<Page<ApiToken>>;
  /** Marks a token revoked at `now` (a second revocation keeps the first time); null if unknown. */
  revokeApiToken(id: string, now: number): Promise<ApiToken | null>;

  // ---- retention ----------------------------------------------------------------------------

  /**
   * Deletes one small batch of what has outlived `retentionMs`: resolved and abandoned records
   * closed before the cutoff, overflow tombstones, finished replay jobs, messages no delivery or
   * record still needs (with their deliveries and attempts), expired idempotency keys. One
   * transaction per call; call again until `done`, passing each call's `messagesReached` to the
   * next as `messagesFrom`: old messages still needed are then walked past once a run, not once a
   * batch.
   */
  pruneExpired(req: {
    now: number;
    retentionMs: number;
    batchSize: number;
    messagesFrom?: number;
  }): Promise<PruneResult>;

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
