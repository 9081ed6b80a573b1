/** The dead-letter queue through the port: records, replays, replay jobs and pruning. */
import type {
  CircuitRecord,
  DeadLetter,
  DeadLetterState,
  Delivery,
  ReplayJob,
  ReplayJobState,
  ReplaySelection,
} from "../../domain/types.js";
import type { PageQuery } from "./queries.js";

/** What recording outcomes (or a person) did to the dead-letter queue; announced once committed. */
export interface DeadLetterChange {
  /**
   * `replay_withdrawn`: a replay that ended without a request (its endpoint was disabled
   * meanwhile, or its bulk job was cancelled or stopped before it was sent). It tells nothing of
   * the receiver, so it is no `replay_failed`: a bulk job counts it withdrawn, and so do the
   * metrics and the single replay's answer.
   */
  kind:
    | "recorded"
    | "overflowed"
    | "replay_succeeded"
    | "replay_failed"
    | "replay_withdrawn"
    | "resolved"
    | "abandoned";
  /** The record's id (for `overflowed`, the tombstone's). */
  deadLetterId: string;
  appId: string;
  endpointId: string;
  /** The delivery whose outcome caused the change, if any. */
  deliveryId: string | null;
  actor: string;
  at: number;
  detail: string;
  /**
   * The person's note of a record resolved or abandoned by hand, as the record's history keeps
   * it; absent for what hookline did by itself.
   */
  note?: string;
}

export interface DeadLetterQuery extends PageQuery {
  appId?: string;
  endpointId?: string;
  /** The records of one message's deliveries (each endpoint it failed at, each resend). */
  messageId?: string;
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

/** A new job, or the scheduled or running job it would share an endpoint with (none made). */
export type ReplayJobCreated =
  { ok: true; job: ReplayJob } | { ok: false; busy: { job: ReplayJob; endpointId: string } };

/** What one step of a job queued: the replays handed to the engine and the records skipped. */
export interface JobReplaysQueued {
  queued: { deadLetterId: string; deliveryId: string; endpointId: string }[];
  skipped: number;
  /** Items still waiting to be queued after this step. */
  remaining: number;
}

/** How many of a job's selected records were skipped for one reason. */
export interface JobSkips {
  detail: string;
  records: number;
}

/** A job's replays out to one endpoint (queued, result not in). */
export interface JobReplaysOut {
  endpointId: string;
  replays: number;
}

/**
 * A job cancelled, with a `replay_withdrawn` change for each replay it took back, to announce;
 * or why not (no such job, or it had ended).
 */
export type ReplayJobCancelled =
  | { ok: true; job: ReplayJob; withdrawn: DeadLetterChange[] }
  | { ok: false; job: ReplayJob | null };

/**
 * A running job's change of stage or reason, with its lease renewed (or handed back, with
 * `leaseUntil` now). Applied only while `runner` still holds the job; ending it is
 * `ReplayJobFinish`.
 */
export interface ReplayJobUpdate {
  id: string;
  /** The runner holding the job (see `claimReplayJobs`). */
  runner: string;
  now: number;
  leaseUntil: number;
  stage?: ReplayJob["stage"];
  /** Why it is waiting (e.g. for the canary), shown with its progress. */
  reason?: string | null;
}

/** A runner ending the job it holds, and why. */
export interface ReplayJobFinish {
  id: string;
  runner: string;
  now: number;
  state: Extract<ReplayJobState, "completed" | "stopped">;
  reason: string | null;
}

/** A job ended, with a `replay_withdrawn` change for each replay it took back, to announce. */
export interface ReplayJobFinished {
  job: ReplayJob;
  withdrawn: DeadLetterChange[];
}

/**
 * What one pruning step deleted; `done` once nothing was left to prune. A step may delete nothing
 * and not be done (the old messages it picked were resent meanwhile, or the expired keys begun
 * again): the next goes on past them.
 */
export interface PruneResult {
  deadLetters: number;
  overflow: number;
  replayJobs: number;
  messages: number;
  idempotencyKeys: number;
  /** Endpoints' circuit history; each circuit's current state stays. */
  circuitTransitions: number;
  /**
   * API tokens that expired (portal links) longer than the retention period ago. Tokens that
   * never expire stay, revoked ones too: a revoked HOOKLINE_ADMIN_TOKEN must not be registered
   * afresh at the next start.
   */
  apiTokens: number;
  /**
   * How far this run's walk of old messages got (a creation time: messages made before it were
   * pruned or are still needed), for the next call's `messagesFrom`; null if not walked yet.
   */
  messagesReached: number | null;
  done: boolean;
}
