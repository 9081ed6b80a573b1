import type { EndpointHealthRead } from "../endpoint-stats.js";
import type { Database as Db } from "better-sqlite3";
import type {
  ApiToken,
  AttemptBucket,
  Application,
  Attempt,
  CircuitRecord,
  DeadLetter,
  DeadLetterOverflow,
  DeadLetterRecord,
  Delivery,
  Endpoint,
  EndpointStats,
  EventType,
  Message,
  ReplayJob,
  DeliveryState,
} from "../../domain/types.js";
import type { CircuitTransition } from "../../engine/breaker.js";
import { ConflictError, StoreUnavailableError } from "../../errors.js";
import {
  DEFAULT_STORE_LIMITS,
  type AcceptResult,
  type EndpointStopped,
  type AlertRecord,
  type AlertSave,
  type BacklogSnapshot,
  type DrillRun,
  type AttemptQuery,
  type ClaimedDelivery,
  type ScanResult,
  type DueEndpoints,
  type DueEndpointsRequest,
  type DeadLetterDecided,
  type DeadLetterDecision,
  type DeadLetterQuery,
  type ApiTokenQuery,
  type ApplicationFilter,
  type DeadLetterSummaryRow,
  type DeliveryOutcome,
  type ContentQuery,
  type EndpointMessage,
  type EndpointMessageQuery,
  type EventTypeQuery,
  type HeldIdempotencyKey,
  type EndpointKeys,
  type IdempotencyScopes,
  type IdempotencyBegin,
  type IdempotencyState,
  type JobReplaysOut,
  type KeptAnswer,
  type JobSkips,
  type JobReplaysQueued,
  type MessageQuery,
  type MessageStateQuery,
  type NewMessage,
  type NewReplayJob,
  type Page,
  type PageQuery,
  type PruneResult,
  type RecordedOutcomes,
  type Release,
  type ReplayEnqueued,
  type ReplayJobCancelled,
  type ReplayJobCreated,
  type ReplayJobFinish,
  type ReplayJobFinished,
  type ReplayJobUpdate,
  type ReplayRequest,
  type ResealProgress,
  type ResealRequest,
  type Store,
  type PauseLadder,
} from "../port.js";
import { FieldCipher } from "../../security/cipher.js";
import { Sealing } from "../sealing.js";
import { ApiTokens } from "./api-tokens.js";
import { Catalogue } from "./catalogue.js";
import { DeadLetters } from "./dead-letters.js";
import { AcceptBatcher } from "./accept-batcher.js";
import { TurnCommit } from "./turn-commit.js";
import { Checkpointer } from "./checkpointer.js";
import { openDatabase, type SqliteOptions } from "./database.js";
import {
  Deliveries,
  type ClaimRequest,
  type ResendRequest,
  type ScanRequest,
} from "./deliveries.js";
import { History } from "./history.js";
import { Observability } from "./observability.js";
import { ReplayJobs } from "./replay-jobs.js";
import { resealBatch, verifySealing } from "./reseal.js";
import { DashboardQueries } from "./dashboard.js";
import { Retention } from "./retention.js";
import { prepareStatements } from "./statements.js";

type EnqueueJobReplays = Parameters<Store["enqueueJobReplays"]>[0];
type CancelReplayJob = Parameters<Store["cancelReplayJob"]>[0];

/**
 * The embedded store: one SQLite file in WAL mode, used by one hookline process. Each method runs
 * one synchronous call of its area (catalogue, deliveries, history, dead letters, replay jobs,
 * retention) inside `run`, which maps driver errors to hookline's error classes.
 */
export class SqliteStore implements Store {
  readonly kind = "sqlite" as const;
  /** One process owns a SQLite file's deliveries; there is nothing to coordinate. */
  readonly coordination = null;
  private readonly db: Db;
  private readonly catalogue: Catalogue;
  private readonly deliveries: Deliveries;
  private readonly history: History;
  private readonly observability: Observability;
  private readonly deadLetters: DeadLetters;
  private readonly replayJobs: ReplayJobs;
  private readonly dashboard: DashboardQueries;
  private readonly retention: Retention;
  private readonly apiTokens: ApiTokens;

  private readonly turn: TurnCommit;
  private readonly accepts: AcceptBatcher;
  private readonly sealing: Sealing;
  private readonly checkpointer: Checkpointer | null = null;

  constructor(options: SqliteOptions) {
    this.db = openDatabase(options);
    if (options.checkpoints && options.path !== ":memory:") {
      this.checkpointer = new Checkpointer(this.db, options.path, options.checkpoints);
    }
    this.sealing = new Sealing(options.cipher ?? new FieldCipher(null));
    const s = prepareStatements(this.db);
    const limits = { ...DEFAULT_STORE_LIMITS, ...options.limits };
    this.catalogue = new Catalogue(this.db, s.catalogue);
    this.deadLetters = new DeadLetters(this.db, s.deadLetters, limits);
    this.deliveries = new Deliveries(this.db, s.deliveries, this.deadLetters);
    this.history = new History(this.db, s.history);
    this.observability = new Observability(this.db);
    this.replayJobs = new ReplayJobs(this.db, s.replayJobs, this.deadLetters);
    this.dashboard = new DashboardQueries(this.db);
    this.retention = new Retention(this.db);
    this.apiTokens = new ApiTokens(this.db, s.catalogue.finishIdem);
    this.turn = new TurnCommit(this.db, (fn) => this.run(fn));
    this.accepts = new AcceptBatcher(
      this.db,
      () => this.deliveries.acceptor(),
      (fn) => this.run(fn),
      this.turn,
    );
  }

  async close(): Promise<void> {
    // What waits for the turn's commit is written, not dropped with the connection.
    if (this.db.open) this.turn.flush();
    // The thread first: the last connection to close checkpoints everything and removes the WAL.
    await this.checkpointer?.close();
    if (this.db.open) this.db.close();
  }

  async ping(): Promise<void> {
    this.run(() => this.db.prepare("SELECT 1").get());
  }

  // ---- applications -------------------------------------------------------------------------

  async createApplication(
    app: Application,
    keyAnswer?: KeptAnswer<Application>,
  ): Promise<Application> {
    const kept = this.sealing.keptAnswerIn(keyAnswer);
    return this.run(
      () => this.catalogue.createApplication(app, kept),
      "an application with this uid",
    );
  }

  async findApplication(idOrUid: string): Promise<Application | null> {
    return this.run(() => this.catalogue.findApplication(idOrUid));
  }

  async listApplications(q: PageQuery & ApplicationFilter): Promise<Page<Application>> {
    return this.run(() => this.catalogue.listApplications(q));
  }

  async updateApplication(
    app: Application,
    seenAt?: number,
    forget?: IdempotencyScopes | null,
  ): Promise<boolean> {
    return this.run(
      () => this.catalogue.updateApplication(app, seenAt ?? null, forget ?? null),
      "an application with this uid",
    );
  }

  async deleteApplication(id: string, forget?: IdempotencyScopes): Promise<void> {
    this.run(() => this.catalogue.deleteApplication(id, forget));
  }

  // ---- endpoints ----------------------------------------------------------------------------

  async createEndpoint(ep: Endpoint, keyAnswer?: KeptAnswer<Endpoint>): Promise<Endpoint> {
    // The answer is made of the endpoint as the caller wrote it, not as it is stored (sealed).
    const kept = this.sealing.keptAnswerIn(keyAnswer, () => ep);
    this.run(
      () => this.catalogue.createEndpoint(this.sealing.endpointIn(ep), kept),
      "an endpoint with this uid",
    );
    return ep;
  }

  async findEndpoint(appId: string, idOrUid: string): Promise<Endpoint | null> {
    return this.sealing.endpointOrNull(this.run(() => this.catalogue.findEndpoint(appId, idOrUid)));
  }

  async getEndpoint(id: string): Promise<Endpoint | null> {
    return this.sealing.endpointOrNull(this.run(() => this.catalogue.getEndpoint(id)));
  }
  async getEndpoints(ids: string[]): Promise<Endpoint[]> {
    return this.run(() => this.catalogue.getEndpoints(ids)).map((ep) =>
      this.sealing.endpointOut(ep),
    );
  }

  async listStoppedEndpoints(ids: string[]): Promise<Map<string, EndpointStopped>> {
    return this.run(() => this.catalogue.listStoppedEndpoints(ids));
  }

  async listEndpoints(appId: string, q: PageQuery): Promise<Page<Endpoint>> {
    const page = this.run(() => this.catalogue.listEndpoints(appId, q));
    return { ...page, data: page.data.map((e) => this.sealing.endpointOut(e)) };
  }

  async updateEndpoint(
    ep: Endpoint,
    seenAt?: number,
    forget?: EndpointKeys | null,
  ): Promise<boolean> {
    return this.run(
      () =>
        this.catalogue.updateEndpoint(this.sealing.endpointIn(ep), seenAt ?? null, forget ?? null),
      "an endpoint with this uid",
    );
  }

  async deleteEndpoint(appId: string, id: string, forget?: EndpointKeys): Promise<void> {
    this.run(() => this.catalogue.deleteEndpoint(appId, id, forget ?? null));
  }

  async clearDeletedEndpoint(id: string): Promise<void> {
    this.run(() => this.catalogue.clearDeletedEndpoint(id));
  }

  // ---- event types --------------------------------------------------------------------------

  async createEventType(et: EventType): Promise<EventType> {
    return this.run(() => this.catalogue.createEventType(et), "an event type with this name");
  }

  async findEventType(name: string): Promise<EventType | null> {
    return this.run(() => this.catalogue.findEventType(name));
  }

  async listEventTypes(q: EventTypeQuery): Promise<Page<EventType>> {
    return this.run(() => this.catalogue.listEventTypes(q));
  }

  async updateEventType(
    et: EventType,
    seenAt?: number,
    forget?: IdempotencyScopes | null,
  ): Promise<boolean> {
    return this.run(() => this.catalogue.updateEventType(et, seenAt ?? null, forget ?? null));
  }

  async deleteEventType(name: string, forget?: IdempotencyScopes): Promise<void> {
    this.run(() => this.catalogue.deleteEventType(name, forget ?? null));
  }

  // ---- idempotency --------------------------------------------------------------------------

  async beginIdempotent(req: IdempotencyBegin): Promise<IdempotencyState> {
    return this.sealing.idempotencyOut(this.run(() => this.catalogue.beginIdempotent(req)));
  }

  async finishIdempotent(held: HeldIdempotencyKey, status: number, body: string): Promise<boolean> {
    const sealed = this.sealing.answerIn(body);
    return this.run(() => this.catalogue.finishIdempotent(held, status, sealed));
  }

  async abandonIdempotent(held: HeldIdempotencyKey): Promise<boolean> {
    return this.run(() => this.catalogue.abandonIdempotent(held));
  }

  // ---- messages -----------------------------------------------------------------------------

  acceptMessage(msg: NewMessage): Promise<AcceptResult> {
    return this.accepts
      .accept(this.sealing.messageIn(msg))
      .then((result) => this.sealing.acceptedOut(msg, result));
  }

  async findMessage(appId: string, idOrEventId: string): Promise<Message | null> {
    return this.sealing.messageOrNull(
      this.run(() => this.deliveries.findMessage(appId, idOrEventId)),
    );
  }

  async findMessages(
    appId: string,
    ids: readonly string[],
    content?: Pick<ContentQuery, "withContent">,
  ): Promise<Message[]> {
    return this.run(() => this.deliveries.findMessages(appId, ids, content)).map((m) =>
      this.sealing.messageOut(m),
    );
  }

  async messagePayloadBytes(appId: string, ids: readonly string[]): Promise<Map<string, number>> {
    return this.run(() => this.deliveries.messagePayloadBytes(appId, ids));
  }

  async listMessages(appId: string, q: MessageQuery): Promise<Page<Message>> {
    const page = this.run(() => this.deliveries.listMessages(appId, q));
    return { ...page, data: page.data.map((m) => this.sealing.messageOut(m)) };
  }

  async listEndpointMessages(q: EndpointMessageQuery): Promise<Page<EndpointMessage>> {
    const page = this.run(() => this.deliveries.listEndpointMessages(q));
    const data = page.data.map((m) => ({ ...m, message: this.sealing.messageOut(m.message) }));
    return { ...page, data };
  }

  async enqueueResend(input: ResendRequest): Promise<Delivery | null> {
    const keyAnswer = this.sealing.keptAnswerIn(input.keyAnswer);
    return this.run(() => this.deliveries.enqueueResend({ ...input, keyAnswer }));
  }

  // ---- the engine's side --------------------------------------------------------------------

  async recoverInflight(now: number): Promise<number> {
    return this.run(() => this.deliveries.recoverInflight(now));
  }

  // Claims commit with the turn's queued writes (turn-commit.ts), outcomes wait for its end.
  async claimDue(req: ClaimRequest): Promise<ClaimedDelivery[]> {
    return this.sealing.claimedOut(this.turn.now(() => this.deliveries.claimDue(req)));
  }

  async scanDue(req: ScanRequest): Promise<ScanResult> {
    const scan = this.turn.now(() => this.deliveries.scanDue(req));
    return { claimed: this.sealing.claimedOut(scan.claimed), reached: scan.reached };
  }

  async dueEndpoints(req: DueEndpointsRequest): Promise<DueEndpoints> {
    return this.run(() => this.deliveries.dueEndpoints(req));
  }

  async nextDueAt(excludeEndpoints: readonly string[], after?: number): Promise<number | null> {
    return this.run(() => this.deliveries.nextDueAt(excludeEndpoints, after));
  }

  async recordAttempts(outcomes: readonly DeliveryOutcome[]): Promise<RecordedOutcomes> {
    if (!outcomes.length) return { kept: [], changes: [] };
    return new Promise((resolve, reject) =>
      this.turn.later(() => this.deliveries.recordAttempts(outcomes), resolve, reject),
    );
  }

  async releaseDeliveries(releases: readonly Release[]): Promise<void> {
    if (releases.length) this.run(() => this.deliveries.releaseDeliveries(releases));
  }

  async pauseEndpoint(endpointId: string, until: number, ladder: PauseLadder): Promise<number> {
    return this.run(() => this.deliveries.pauseEndpoint(endpointId, until, ladder));
  }

  async getDelivery(id: string): Promise<Delivery | null> {
    return this.run(() => this.deliveries.getDelivery(id));
  }

  async listDeliveries(messageId: string): Promise<Delivery[]> {
    return this.run(() => this.deliveries.listDeliveries(messageId));
  }

  // ---- circuits and stats -------------------------------------------------------------------

  async saveCircuit(
    endpointId: string,
    c: CircuitRecord,
    transition: CircuitTransition | null,
  ): Promise<void> {
    this.run(() => this.history.saveCircuit(endpointId, c, transition));
  }

  async bringProbeForward(endpointId: string, at: number): Promise<boolean> {
    return this.run(() => this.history.bringProbeForward(endpointId, at));
  }

  async getCircuit(endpointId: string): Promise<CircuitRecord | null> {
    return this.run(() => this.history.getCircuit(endpointId));
  }

  async listUnclosedCircuits(
    limit: number,
  ): Promise<{ endpointId: string; circuit: CircuitRecord }[]> {
    return this.run(() => this.history.listUnclosedCircuits(limit));
  }

  async listCircuitTransitions(
    endpointId: string,
    limit: number,
  ): Promise<(CircuitTransition & { endpointId: string })[]> {
    return this.run(() => this.history.listCircuitTransitions(endpointId, limit));
  }

  async getEndpointStats(endpointId: string): Promise<EndpointStats> {
    return this.run(() => this.history.getEndpointStats(endpointId));
  }
  async getCircuits(endpointIds: string[]): Promise<Map<string, CircuitRecord>> {
    return this.run(() => this.history.getCircuits(endpointIds));
  }
  async getEndpointsHealth(endpointIds: string[]): Promise<Map<string, EndpointHealthRead>> {
    return this.run(() => this.history.getEndpointsHealth(endpointIds));
  }

  async attemptBuckets(q: {
    endpointId: string;
    since: number;
    bucketMs: number;
  }): Promise<AttemptBucket[]> {
    return this.run(() => this.dashboard.attemptBuckets(q));
  }

  async endpointMessageStates(q: MessageStateQuery): Promise<Record<DeliveryState, number>> {
    return this.run(() => this.dashboard.endpointMessageStates(q));
  }

  async countWaitingDeliveries(endpointId: string, atMost: number): Promise<number> {
    return this.run(() => this.dashboard.countWaitingDeliveries(endpointId, atMost));
  }

  async messageDeliveryStates(
    appId: string,
    messageIds: readonly string[],
  ): Promise<Map<string, Record<DeliveryState, number>>> {
    return this.run(() => this.dashboard.messageDeliveryStates(appId, messageIds));
  }

  // ---- read models --------------------------------------------------------------------------

  async listAttempts(q: AttemptQuery): Promise<Page<Attempt>> {
    return this.run(() => this.history.listAttempts(q));
  }

  async findAttempt(appId: string, attemptId: string): Promise<Attempt | null> {
    return this.run(() => this.history.findAttempt(appId, attemptId));
  }

  // ---- the dead-letter queue ----------------------------------------------------------------

  async listDeadLetters(q: DeadLetterQuery): Promise<Page<DeadLetter>> {
    return this.run(() => this.deadLetters.list(q));
  }

  async getDeadLetter(id: string): Promise<DeadLetter | null> {
    return this.run(() => this.deadLetters.getDeadLetter(id));
  }

  async findDeadLetterByDelivery(deliveryId: string): Promise<DeadLetter | null> {
    return this.run(() => this.deadLetters.findByDelivery(deliveryId));
  }

  async deadLetterReasons(
    messageId: string,
    deliveryIds: readonly string[],
  ): Promise<Map<string, string>> {
    return this.run(() => this.deadLetters.reasonsOf(messageId, deliveryIds));
  }

  async getDeadLetterRecord(id: string): Promise<DeadLetterRecord | null> {
    return this.sealing.recordOut(this.run(() => this.deadLetters.getRecord(id)));
  }

  async deadLetterSummary(q: { appId?: string }): Promise<DeadLetterSummaryRow[]> {
    return this.run(() => this.deadLetters.summary(q));
  }

  async listDeadLetterOverflow(
    q: PageQuery & { appId?: string; endpointId?: string },
  ): Promise<Page<DeadLetterOverflow>> {
    return this.run(() => this.deadLetters.listOverflow(q));
  }

  async enqueueReplay(
    req: ReplayRequest,
    keyAnswer?: KeptAnswer<ReplayEnqueued>,
  ): Promise<ReplayEnqueued> {
    const kept = this.sealing.keptAnswerIn(keyAnswer);
    return this.run(() => this.deadLetters.enqueueReplay(req, kept));
  }

  async resolveDeadLetter(req: DeadLetterDecision): Promise<DeadLetterDecided> {
    return this.run(() => this.deadLetters.decide(req, "resolved"));
  }

  async abandonDeadLetter(req: DeadLetterDecision): Promise<DeadLetterDecided> {
    return this.run(() => this.deadLetters.decide(req, "abandoned"));
  }

  // ---- bulk replay jobs ---------------------------------------------------------------------

  async createReplayJob(job: NewReplayJob): Promise<ReplayJobCreated> {
    return this.run(() => this.replayJobs.create(job), "a replay job with this id");
  }

  async getReplayJob(id: string): Promise<ReplayJob | null> {
    return this.run(() => this.replayJobs.get(id));
  }

  async listReplayJobs(q: PageQuery): Promise<Page<ReplayJob>> {
    return this.run(() => this.dashboard.listReplayJobs(q));
  }

  async claimReplayJobs(req: Parameters<Store["claimReplayJobs"]>[0]): Promise<ReplayJob[]> {
    return this.run(() => this.replayJobs.claim(req));
  }

  async releaseReplayJobs(): Promise<void> {
    this.run(() => this.replayJobs.release());
  }

  async nextReplayJobAt(): Promise<number | null> {
    return this.run(() => this.replayJobs.nextStart());
  }

  async noteReplayJobsWaiting(req: { now: number; reason: string }): Promise<number | null> {
    return this.run(() => this.replayJobs.noteWaiting(req));
  }

  async prepareReplayJob(id: string, now: number): Promise<ReplayJob | null> {
    return this.run(() => this.replayJobs.prepare(id, now));
  }

  async enqueueJobReplays(req: EnqueueJobReplays): Promise<JobReplaysQueued> {
    return this.run(() => this.replayJobs.enqueue(req));
  }

  async updateReplayJob(update: ReplayJobUpdate): Promise<ReplayJob | null> {
    return this.run(() => this.replayJobs.update(update));
  }

  async finishReplayJob(finish: ReplayJobFinish): Promise<ReplayJobFinished | null> {
    return this.run(() => this.replayJobs.finish(finish));
  }

  async replayJobEndpointsOut(jobId: string): Promise<JobReplaysOut[]> {
    return this.run(() => this.replayJobs.endpointsOut(jobId));
  }

  async replayJobSkips(jobId: string): Promise<JobSkips[]> {
    return this.run(() => this.replayJobs.skips(jobId));
  }

  async cancelReplayJob(req: CancelReplayJob): Promise<ReplayJobCancelled> {
    return this.run(() => this.replayJobs.cancel(req));
  }

  // ---- API tokens --------------------------------------------------------------------------

  async createApiToken(token: ApiToken, keyAnswer?: KeptAnswer<ApiToken>): Promise<ApiToken> {
    const kept = this.sealing.keptAnswerIn(keyAnswer);
    return this.run(() => this.apiTokens.create(token, kept), "an API token with this hash");
  }

  async findApiTokenByHash(hash: string): Promise<ApiToken | null> {
    return this.run(() => this.apiTokens.findByHash(hash));
  }

  async listApiTokens(q: ApiTokenQuery): Promise<Page<ApiToken>> {
    return this.run(() => this.apiTokens.list(q));
  }

  async revokeApiToken(id: string, now: number): Promise<ApiToken | null> {
    return this.run(() => this.apiTokens.revoke(id, now));
  }

  // ---- encryption at rest ------------------------------------------------------------------

  async verifySealing(): Promise<void> {
    this.run(() => verifySealing(this.db, this.sealing));
  }

  async resealBatch(req: ResealRequest): Promise<ResealProgress> {
    return this.run(() => resealBatch(this.db, this.sealing, req));
  }

  // ---- retention ----------------------------------------------------------------------------

  async pruneExpired(req: {
    now: number;
    retentionMs: number;
    batchSize: number;
    messagesFrom?: number;
  }): Promise<PruneResult> {
    return this.run(() => this.retention.prune(req));
  }

  // ---- observability ------------------------------------------------------------------------

  async backlogSnapshot(req: { now: number; endpointLimit: number }): Promise<BacklogSnapshot> {
    return this.run(() => this.observability.backlogSnapshot(req));
  }

  async saveAlerts(req: AlertSave): Promise<string[]> {
    return this.run(() => this.observability.saveAlerts(req));
  }

  async adoptAlerts(holder: string): Promise<AlertRecord[]> {
    return this.run(() => this.observability.adoptAlerts(holder));
  }

  async listAlerts(q: { resolvedSince: number }): Promise<AlertRecord[]> {
    return this.run(() => this.observability.listAlerts(q));
  }

  async recordDrillRun(run: DrillRun, keep: number): Promise<void> {
    await this.run(() => this.observability.recordDrillRun(run, keep));
  }

  async listDrillRuns(limit: number): Promise<DrillRun[]> {
    return this.run(() => this.observability.listDrillRuns(limit));
  }

  async lastPassedDrillAt(): Promise<number | null> {
    return this.run(() => this.observability.lastPassedDrillAt());
  }

  /** Runs a synchronous database call, turning driver errors into hookline's error classes. */
  private run<T>(fn: () => T, uniqueWhat?: string): T {
    try {
      return fn();
    } catch (err) {
      const code = (err as { code?: string }).code ?? "";
      if (
        (code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY") &&
        uniqueWhat
      ) {
        throw new ConflictError(`${uniqueWhat} already exists`, { cause: err });
      }
      if (
        !this.db.open ||
        /^SQLITE_(BUSY|LOCKED|READONLY|IOERR|FULL|CANTOPEN|CORRUPT|NOTADB)/.test(code)
      ) {
        throw new StoreUnavailableError(`SQLite store unavailable (${code || "closed"})`, {
          cause: err,
        });
      }
      throw err;
    }
  }
}
