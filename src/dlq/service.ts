/**
 * The dead-letter queue as people use it: replay one record and wait for the outcome, resolve or
 * abandon with a note, start and cancel bulk replay jobs. Nothing here moves a record by itself;
 * every change starts with a person's request (or a job a person started).
 */
import type { Clock } from "../clock.js";
import type { Attempt, DeadLetter, Endpoint, ReplayJob, ReplaySelection } from "../domain/types.js";
import type { EngineControl } from "../engine/control.js";
import type { EngineEvent, EngineEvents } from "../engine/events.js";
import { resolvePolicy, type PolicyDefaults } from "../engine/policy.js";
import { ConflictError, NotFoundError } from "../errors.js";
import { newId } from "../ids.js";
import { askedToWaitIn, replayEnding, type ReplayEnding } from "../store/dead-letter-text.js";
import { lastAttemptOf, type DeliveryRef } from "../store/last-attempt.js";
import { circuitNow } from "./circuit-now.js";
import type {
  DeadLetterChange,
  DeadLetterDecided,
  KeptAnswer,
  ReplayEnqueued,
  Store,
} from "../store/port.js";

/** The DLQ's settings, from the configuration. */
export interface DlqSettings {
  /** Failed replays in a row after which a record is abandoned; 0: never. */
  maxReplays: number;
  /** Defaults of a bulk replay. */
  replayRate: number;
  canarySize: number;
  canaryThreshold: number;
}

/** What the DLQ service needs, passed in by the entry point. */
export interface DlqDeps {
  store: Store;
  engine: EngineControl;
  /** The domain event bus the engine announces on; the DLQ announces people's decisions on it. */
  events: EngineEvents;
  clock: Clock;
  policyDefaults: PolicyDefaults;
  settings: DlqSettings;
  /** Told when a job is created or cancelled, so it is picked up (or let go) at once. */
  jobs?: { wake(): void };
}

/** What a single replay came to within the wait. */
export type ReplayAnswer =
  | {
      kind: "attempted";
      record: DeadLetter;
      deliveryId: string;
      /**
       * `withdrawn`: it ended without a request (its endpoint was disabled meanwhile), so it says
       * nothing of the receiver, as the record's history (`replay_withdrawn`) and the metrics say.
       */
      result: ReplayEnding;
      /** Null when the replay was withdrawn. */
      attempt: Attempt | null;
      /**
       * Why no request went out, when none did (endpoint disabled, address refused); when a 429's
       * Retry-After asked hookline to wait, for how long; else null.
       */
      detail: string | null;
    }
  | QueuedReplay;

/** A single replay answered before its outcome: queued, and why. */
export interface QueuedReplay {
  kind: "queued";
  record: DeadLetter;
  deliveryId: string;
  reason: string;
}

/** A bulk replay as asked for; unset options take the configured defaults. */
export interface BulkReplayRequest {
  selection: ReplaySelection;
  ratePerSecond?: number;
  canarySize?: number;
  canaryThreshold?: number;
  startAt?: number;
  note?: string | null;
  actor: string;
  task?: ReplayJob["task"];
}

/** How long a single replay waits beyond the endpoint's request timeout for the outcome. */
const REPLAY_WAIT_MARGIN_MS = 5_000;

/** The dead-letter queue's operations; see the module comment. */
export class DeadLetterQueue {
  constructor(private readonly deps: DlqDeps) {}

  /**
   * Replays one record: the same bytes and webhook-id, freshly signed, through the engine like
   * any delivery. Waits for the outcome up to the endpoint's timeout plus a margin; answers
   * `queued` at once when the endpoint's circuit is open (the replay waits for the probe), or when
   * the wait ends first. Throws NotFoundError when the record was deleted (with its endpoint)
   * before any outcome came.
   *
   * `keyAnswer`: a keyed request's answer, made of the replay as queued and kept on the key in the
   * replay's own transaction. The answer with the outcome comes too late for it (it waits for the
   * attempt), and kept apart, one that failed to be kept let a retry replay the record again.
   */
  async replay(
    id: string,
    by: { actor: string; note: string | null },
    keyAnswer?: KeptAnswer<QueuedReplay>,
  ): Promise<ReplayAnswer> {
    const { store, clock } = this.deps;
    const record = await this.require(id);
    const endpoint = await store.getEndpoint(record.endpointId);
    if (!endpoint) throw new NotFoundError(`endpoint ${record.endpointId}`);
    if (endpoint.disabled) throw disabledRefusal(endpoint);
    const now = clock.now();
    const deliveryId = newId("dlv", now);
    const app = await store.findApplication(record.appId);
    const policy = resolvePolicy(
      this.deps.policyDefaults,
      app?.deliveryPolicy ?? null,
      endpoint.deliveryPolicy,
    );
    // Listen before queueing, so an outcome that comes quickly cannot be missed.
    const outcome = this.outcomeOf(
      { deliveryId, appId: record.appId, messageId: record.messageId, endpointId: endpoint.id },
      policy.timeoutMs + REPLAY_WAIT_MARGIN_MS,
    );
    // A store that fails from here on must not leave the listener and its timer behind.
    const queued = await store
      .enqueueReplay(
        {
          deadLetterId: id,
          deliveryId,
          now,
          actor: by.actor,
          note: by.note,
          abandonAfter: this.deps.settings.maxReplays || null,
        },
        keyAnswer && queuedAnswer(keyAnswer, deliveryId),
      )
      .catch(cancelling(outcome));
    if (!queued.ok) {
      outcome.cancel();
      throw refusal(id, queued.record, "replayed", ["open", "resolved"]);
    }
    outcome.queued();
    this.deps.engine.wake(now);
    const circuit = await this.circuitOf(endpoint.id).catch(cancelling(outcome));
    if (circuit.state === "open" && (circuit.nextProbeAt ?? 0) > now) {
      outcome.cancel();
      const at = new Date(circuit.nextProbeAt!).toISOString();
      return {
        kind: "queued",
        record: queued.record,
        deliveryId,
        reason: `the endpoint's circuit is open: the replay is queued behind its probe at ${at}`,
      };
    }
    const event = await outcome.promise;
    const current = await store.getDeadLetter(id);
    if (event === GONE || (!event && !current)) {
      // Deleted with its endpoint (or application) while the replay waited: the replay went with
      // it, and whatever came of a request already out was not kept.
      throw new NotFoundError(`dead-letter record ${id} (its endpoint was deleted meanwhile)`);
    }
    const after = current ?? queued.record;
    if (!event) {
      return {
        kind: "queued",
        record: after,
        deliveryId,
        reason:
          "the replay was not attempted within the wait (the endpoint is busy); " +
          "the record is updated when it is",
      };
    }
    return {
      kind: "attempted",
      record: after,
      deliveryId,
      // As the store decided (no attempt, no request): the record's history entry says the same.
      result: replayEnding(event.state === "succeeded", event.attempt !== null),
      attempt: event.attempt,
      detail: await this.whyNothingWasSent(id, deliveryId, event.attempt),
    };
  }

  /** open or abandoned → resolved: a person says the matter is dealt with. */
  async resolve(id: string, by: { actor: string; note: string }): Promise<DeadLetter> {
    const now = this.deps.clock.now();
    const done = await this.deps.store.resolveDeadLetter({ id, ...by, now });
    return this.decided(id, done, "resolved", ["open", "abandoned"], by, now);
  }

  /** open → abandoned: a person gives up on delivering it. */
  async abandon(id: string, by: { actor: string; note: string }): Promise<DeadLetter> {
    const now = this.deps.clock.now();
    const done = await this.deps.store.abandonDeadLetter({ id, ...by, now });
    return this.decided(id, done, "abandoned", ["open"], by, now);
  }

  /**
   * Creates a bulk replay job; it runs in the background from `startAt` (default: now). Throws
   * ConflictError while a scheduled or running job may replay to an endpoint this one may: each
   * keeps to its own rate, and together they would send the endpoint more than either asked.
   */
  async startBulkReplay(req: BulkReplayRequest): Promise<ReplayJob> {
    const { settings } = this.deps;
    // A job for one endpoint that is disabled would skip every record and end "completed" having
    // sent nothing: refused, as a single replay is. (A job across endpoints skips the records of
    // those disabled when their turn comes, and counts them.)
    const { endpointId } = req.selection;
    const endpoint = endpointId ? await this.deps.store.getEndpoint(endpointId) : null;
    if (endpoint?.disabled) throw disabledRefusal(endpoint);
    const now = this.deps.clock.now();
    const created = await this.deps.store.createReplayJob({
      id: newId("job", now),
      task: req.task ?? "dlq.replay",
      selection: req.selection,
      ratePerSecond: req.ratePerSecond ?? settings.replayRate,
      canarySize: req.canarySize ?? settings.canarySize,
      canaryThreshold: req.canaryThreshold ?? settings.canaryThreshold,
      startAt: Math.max(now, req.startAt ?? now),
      createdBy: req.actor,
      note: req.note ?? null,
      now,
    });
    if (!created.ok) {
      const { job, endpointId } = created.busy;
      throw new ConflictError(
        `replay job ${job.id} is ${job.state} on endpoint ${endpointId}: one bulk replay at a ` +
          `time per endpoint, so that their rates do not add up; wait for it to end, or cancel it`,
      );
    }
    this.deps.jobs?.wake();
    return created.job;
  }

  async job(id: string): Promise<ReplayJob> {
    const job = await this.deps.store.getReplayJob(id);
    if (!job) throw new NotFoundError(`replay job ${id}`);
    return job;
  }

  /** Stops a scheduled or running job; replays queued but not yet sent are withdrawn. */
  async cancelJob(id: string, actor: string): Promise<ReplayJob> {
    const done = await this.deps.store.cancelReplayJob({ id, actor, now: this.deps.clock.now() });
    if (!done.ok) {
      if (!done.job) throw new NotFoundError(`replay job ${id}`);
      throw new ConflictError(
        `replay job ${id} is ${done.job.state}; only a scheduled or running job can be cancelled`,
      );
    }
    // Each replay taken back: counted withdrawn, as one whose endpoint was disabled is.
    for (const change of done.withdrawn) this.deps.events.emit({ type: "dead-letter", change });
    this.deps.jobs?.wake();
    return done.job;
  }

  /**
   * Why a replay's request never went out, or null when it did. Ended without an attempt (its
   * endpoint was disabled after the replay was queued): the record's history says why, in the
   * entry the outcome wrote — read from the store, since another process may have ended it.
   * Refused by the SSRF guard: the attempt is recorded, but no connection was made. Answered 429
   * with a Retry-After: a request went out, and the detail says when the receiver asked to be
   * tried again.
   */
  private async whyNothingWasSent(
    id: string,
    deliveryId: string,
    attempt: Attempt | null,
  ): Promise<string | null> {
    if (attempt?.outcome === "rate_limited") {
      // Answered 429: when the receiver asked to be tried again, if it said (Retry-After).
      const entry = await this.replayEntry(id, deliveryId);
      return entry ? askedToWaitIn(entry.result) : null;
    }
    if (attempt) {
      if (attempt.error !== "refused_target") return null;
      const why = (attempt.errorDetail ?? "").replace(/^HOOKLINE_REFUSED_TARGET: /, "");
      return `no request was sent: ${why || "hookline refused the endpoint's address"}`;
    }
    const entry = await this.replayEntry(id, deliveryId);
    return entry?.result ?? "no request was sent";
  }

  /** The record's history entry the replay's outcome wrote (withdrawn when nothing was sent). */
  private async replayEntry(id: string, deliveryId: string) {
    const record = await this.deps.store.getDeadLetterRecord(id);
    return record?.history.findLast(
      (e) =>
        (e.action === "replayed" || e.action === "replay_withdrawn") && e.deliveryId === deliveryId,
    );
  }

  private async require(id: string): Promise<DeadLetter> {
    const record = await this.deps.store.getDeadLetter(id);
    if (!record) throw new NotFoundError(`dead-letter record ${id}`);
    return record;
  }

  private async circuitOf(endpointId: string) {
    return (await circuitNow(this.deps, endpointId)) ?? { state: "closed", nextProbeAt: null };
  }

  private decided(
    id: string,
    done: DeadLetterDecided,
    to: "resolved" | "abandoned",
    from: DeadLetter["state"][],
    by: { actor: string; note: string },
    at: number,
  ): DeadLetter {
    if (!done.ok) throw refusal(id, done.record, to, from);
    const r = done.record;
    const change: DeadLetterChange = {
      kind: to,
      deadLetterId: r.id,
      appId: r.appId,
      endpointId: r.endpointId,
      deliveryId: null,
      actor: by.actor,
      at,
      detail: `${to} by ${by.actor}`,
      note: by.note,
    };
    this.deps.events.emit({ type: "dead-letter", change });
    return r;
  }

  /**
   * Resolves with the committed final event of a delivery, with GONE once the delivery was
   * deleted with its endpoint, or with null after `timeoutMs`. With a store shared by several
   * processes another worker may make the attempt, or delete the endpoint, so the store is also
   * asked every so often, from `queued()` on: once the replay's commit is done, a delivery the
   * store does not have is gone.
   */
  private outcomeOf(d: DeliveryRef, timeoutMs: number) {
    let cancel = () => {};
    let queued = () => {};
    const promise = new Promise<FinalEvent | typeof GONE | null>((resolve) => {
      const timer = setTimeout(() => finish(null), timeoutMs);
      let poll: NodeJS.Timeout | null = null;
      let done = false;
      const off = this.deps.events.on((e) => {
        if (e.type === "delivery" && e.deliveryId === d.deliveryId && e.state !== "pending") {
          finish(e);
        } else if (e.type === "endpoint.deleted" && e.endpointId === d.endpointId) {
          finish(GONE);
        }
      });
      const finish = (e: FinalEvent | typeof GONE | null) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (poll) clearTimeout(poll);
        off();
        resolve(e);
      };
      const ask = () => {
        poll = setTimeout(() => {
          this.finalFromStore(d).then(
            (e) => (e ? finish(e) : done || ask()),
            () => done || ask(),
          );
        }, STORE_POLL_MS);
      };
      queued = () => {
        if (this.deps.store.coordination && !done) ask();
      };
      cancel = () => finish(null);
    });
    return { promise, cancel: () => cancel(), queued: () => queued() };
  }

  /**
   * The committed delivery's final state as the store has it, shaped like the engine's event;
   * GONE when it is no longer there.
   */
  private async finalFromStore(d: DeliveryRef): Promise<FinalEvent | typeof GONE | null> {
    const delivery = await this.deps.store.getDelivery(d.deliveryId);
    if (!delivery) return GONE;
    if (delivery.state !== "succeeded" && delivery.state !== "dead") return null;
    const attempt = await lastAttemptOf(this.deps.store, d);
    return {
      type: "delivery",
      deliveryId: d.deliveryId,
      messageId: d.messageId,
      endpointId: d.endpointId,
      appId: d.appId,
      state: delivery.state,
      nextAttemptAt: null,
      attempt,
      // Known only to the process that made the attempt; a replay's answer does not need them.
      failureClass: null,
      retryAfter: null,
      attemptNumber: null,
      replay: true,
    };
  }
}

type FinalEvent = Extract<EngineEvent, { type: "delivery" }>;

/** Ends a replay's wait for its outcome, then rethrows what stopped the replay. */
const cancelling =
  (outcome: { cancel(): void }) =>
  (err: unknown): never => {
    outcome.cancel();
    throw err;
  };

/**
 * A keyed replay's answer as its transaction keeps it: queued, naming the replay, so that a retry
 * is answered for it; none when the replay is refused (the key is freed as the request ends).
 */
function queuedAnswer(
  keyAnswer: KeptAnswer<QueuedReplay>,
  deliveryId: string,
): KeptAnswer<ReplayEnqueued> {
  return {
    held: keyAnswer.held,
    answer: (queued) =>
      queued.ok
        ? keyAnswer.answer({
            kind: "queued",
            record: queued.record,
            deliveryId,
            reason:
              "the replay was queued by an earlier request with this idempotency key; " +
              "the record tells its outcome",
          })
        : null,
  };
}

/** A replay's wait ended because its delivery was deleted with its endpoint. */
const GONE = Symbol("gone");

/** How often a replay waiting on a shared store asks it for the outcome. */
const STORE_POLL_MS = 250;

/** 409 for a replay to a disabled endpoint, saying why it was disabled when hookline knows. */
function disabledRefusal(endpoint: Endpoint): ConflictError {
  const why = endpoint.disabledReason ? ` (${endpoint.disabledReason})` : "";
  return new ConflictError(`endpoint ${endpoint.id} is disabled${why}; enable it before replaying`);
}

/** 404 for no record, else 409 naming the state and what would be allowed. */
function refusal(
  id: string,
  record: DeadLetter | null,
  verb: string,
  allowed: DeadLetter["state"][],
): Error {
  if (!record) return new NotFoundError(`dead-letter record ${id}`);
  const why =
    record.state === "replaying"
      ? "a replay of it is already in progress; wait for its outcome"
      : `only ${allowed.join(" or ")} records can be ${verb}`;
  return new ConflictError(`record ${id} is ${record.state}: ${why}`);
}
