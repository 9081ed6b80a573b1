import type { Database as Db } from "better-sqlite3";
import type {
  Application,
  Attempt,
  CircuitRecord,
  DeadLetter,
  Delivery,
  Endpoint,
  EndpointStats,
  EventType,
  Message,
} from "../../domain/types.js";
import type { CircuitTransition } from "../../engine/breaker.js";
import { ConflictError, StoreUnavailableError } from "../../errors.js";
import type {
  AcceptResult,
  AttemptQuery,
  ClaimedDelivery,
  DeliveryOutcome,
  IdempotencyBegin,
  IdempotencyState,
  MessageQuery,
  NewMessage,
  Page,
  PageQuery,
  Release,
  Store,
} from "../port.js";
import { Catalogue } from "./catalogue.js";
import { openDatabase, type SqliteOptions } from "./database.js";
import { Deliveries, type ClaimRequest, type ResendRequest } from "./deliveries.js";
import { History } from "./history.js";
import { prepareStatements } from "./statements.js";

/**
 * The embedded store: one SQLite file in WAL mode, used by one hookline process. Each method runs
 * one synchronous call of its area (catalogue, deliveries, history) inside `run`, which maps driver
 * errors to hookline's error classes.
 */
export class SqliteStore implements Store {
  readonly kind = "sqlite" as const;
  private readonly db: Db;
  private readonly catalogue: Catalogue;
  private readonly deliveries: Deliveries;
  private readonly history: History;

  constructor(options: SqliteOptions) {
    this.db = openDatabase(options);
    const s = prepareStatements(this.db);
    this.catalogue = new Catalogue(this.db, s.catalogue);
    this.deliveries = new Deliveries(this.db, s.deliveries);
    this.history = new History(this.db, s.history);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  async ping(): Promise<void> {
    this.run(() => this.db.prepare("SELECT 1").get());
  }

  // ---- applications -------------------------------------------------------------------------

  async createApplication(app: Application): Promise<Application> {
    return this.run(() => this.catalogue.createApplication(app), "an application with this uid");
  }

  async findApplication(idOrUid: string): Promise<Application | null> {
    return this.run(() => this.catalogue.findApplication(idOrUid));
  }

  async listApplications(q: PageQuery): Promise<Page<Application>> {
    return this.run(() => this.catalogue.listApplications(q));
  }

  async updateApplication(app: Application): Promise<Application> {
    return this.run(() => this.catalogue.updateApplication(app), "an application with this uid");
  }

  async deleteApplication(id: string): Promise<void> {
    this.run(() => this.catalogue.deleteApplication(id));
  }

  // ---- endpoints ----------------------------------------------------------------------------

  async createEndpoint(ep: Endpoint): Promise<Endpoint> {
    return this.run(() => this.catalogue.createEndpoint(ep), "an endpoint with this uid");
  }

  async findEndpoint(appId: string, idOrUid: string): Promise<Endpoint | null> {
    return this.run(() => this.catalogue.findEndpoint(appId, idOrUid));
  }

  async getEndpoint(id: string): Promise<Endpoint | null> {
    return this.run(() => this.catalogue.getEndpoint(id));
  }

  async listEndpoints(appId: string, q: PageQuery): Promise<Page<Endpoint>> {
    return this.run(() => this.catalogue.listEndpoints(appId, q));
  }

  async updateEndpoint(ep: Endpoint): Promise<Endpoint> {
    return this.run(() => this.catalogue.updateEndpoint(ep), "an endpoint with this uid");
  }

  async deleteEndpoint(appId: string, id: string): Promise<void> {
    this.run(() => this.catalogue.deleteEndpoint(appId, id));
  }

  // ---- event types --------------------------------------------------------------------------

  async createEventType(et: EventType): Promise<EventType> {
    return this.run(() => this.catalogue.createEventType(et), "an event type with this name");
  }

  async findEventType(name: string): Promise<EventType | null> {
    return this.run(() => this.catalogue.findEventType(name));
  }

  async listEventTypes(q: PageQuery & { includeArchived?: boolean }): Promise<Page<EventType>> {
    return this.run(() => this.catalogue.listEventTypes(q));
  }

  async updateEventType(et: EventType): Promise<EventType> {
    return this.run(() => this.catalogue.updateEventType(et));
  }

  async deleteEventType(name: string): Promise<void> {
    this.run(() => this.catalogue.deleteEventType(name));
  }

  // ---- idempotency --------------------------------------------------------------------------

  async beginIdempotent(req: IdempotencyBegin): Promise<IdempotencyState> {
    return this.run(() => this.catalogue.beginIdempotent(req));
  }

  async finishIdempotent(scope: string, key: string, status: number, body: string): Promise<void> {
    this.run(() => this.catalogue.finishIdempotent(scope, key, status, body));
  }

  async abandonIdempotent(scope: string, key: string): Promise<void> {
    this.run(() => this.catalogue.abandonIdempotent(scope, key));
  }

  // ---- messages -----------------------------------------------------------------------------

  async acceptMessage(msg: NewMessage): Promise<AcceptResult> {
    return this.run(() => this.deliveries.acceptMessage(msg));
  }

  async findMessage(appId: string, idOrEventId: string): Promise<Message | null> {
    return this.run(() => this.deliveries.findMessage(appId, idOrEventId));
  }

  async listMessages(appId: string, q: MessageQuery): Promise<Page<Message>> {
    return this.run(() => this.deliveries.listMessages(appId, q));
  }

  async enqueueResend(input: ResendRequest): Promise<Delivery> {
    return this.run(() => this.deliveries.enqueueResend(input));
  }

  // ---- the engine's side --------------------------------------------------------------------

  async recoverInflight(now: number): Promise<number> {
    return this.run(() => this.deliveries.recoverInflight(now));
  }

  async claimDue(req: ClaimRequest): Promise<ClaimedDelivery[]> {
    return this.run(() => this.deliveries.claimDue(req));
  }

  async nextDueAt(excludeEndpoints: readonly string[]): Promise<number | null> {
    return this.run(() => this.deliveries.nextDueAt(excludeEndpoints));
  }

  async recordAttempts(outcomes: readonly DeliveryOutcome[]): Promise<void> {
    if (outcomes.length) this.run(() => this.deliveries.recordAttempts(outcomes));
  }

  async releaseDeliveries(releases: readonly Release[]): Promise<void> {
    if (releases.length) this.run(() => this.deliveries.releaseDeliveries(releases));
  }

  async pauseEndpoint(endpointId: string, until: number): Promise<number> {
    return this.run(() => this.deliveries.pauseEndpoint(endpointId, until));
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

  async loadCircuits(): Promise<Map<string, CircuitRecord>> {
    return this.run(() => this.history.loadCircuits());
  }

  async getCircuit(endpointId: string): Promise<CircuitRecord | null> {
    return this.run(() => this.history.getCircuit(endpointId));
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

  // ---- read models --------------------------------------------------------------------------

  async listAttempts(q: AttemptQuery): Promise<Page<Attempt>> {
    return this.run(() => this.history.listAttempts(q));
  }

  async findAttempt(appId: string, attemptId: string): Promise<Attempt | null> {
    return this.run(() => this.history.findAttempt(appId, attemptId));
  }

  async listDeadLetters(
    q: PageQuery & { appId?: string; endpointId?: string },
  ): Promise<Page<DeadLetter>> {
    return this.run(() => this.history.listDeadLetters(q));
  }

  async findDeadLetterByDelivery(deliveryId: string): Promise<DeadLetter | null> {
    return this.run(() => this.history.findDeadLetterByDelivery(deliveryId));
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
