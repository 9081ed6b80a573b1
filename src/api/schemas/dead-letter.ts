/**
 * The dead-letter queue's input and output shapes. A record's payload is answered with the exact
 * bytes stored (spliced into the JSON, never parsed and re-stringified), like a message's.
 */
import { z } from "zod";
import type {
  Attempt,
  DeadLetter,
  DeadLetterEvent,
  DeadLetterOverflow,
  DeadLetterRecord,
  ReplayJob,
} from "../../domain/types.js";
import { DATE_TIME_ERROR, EventTypeName, listQueryOf, QueryTime } from "../validation.js";
import { isLater, isNamedTime, namedTime, type NamedTime } from "../named-time.js";
import { reasonShown } from "../../dlq/job-reason.js";
import { Timestamp, iso } from "./common.js";
import {
  RetryAfterIgnoredOut,
  RetryAfterOut,
  retryAfterIgnoredOut,
  retryAfterOut,
} from "./retry-after.js";

const DLQ_STATES = ["open", "replaying", "resolved", "abandoned"] as const;
const FailureClass = z.enum(["exhausted", "permanent"]);

// ---- input ------------------------------------------------------------------------------------

/** `state=open,replaying` or a repeated `state`. */
const StatesQuery = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(",")).filter(Boolean))
  .pipe(z.array(z.enum(DLQ_STATES, { error: `must be one of ${DLQ_STATES.join(", ")}` })));

const IdOrUid = z.string().min(1).max(256);

// Records carry the message's id, never looked up by its eventId: any other text (an eventId, a
// typo) matched no record and was answered with an empty page, which reads as "none of this
// message's deliveries was given up on".
const MessageId = z
  .string()
  .regex(/^msg_[0-9A-Z]{26}$/, "must be a message id ('msg_' and 26 characters), not its eventId");

/** GET /api/v1/dlq: the list's filters and pagination. */
export const DeadLetterListQuery = listQueryOf("dlq")
  .extend({
    app_id: IdOrUid.optional(),
    endpoint_id: IdOrUid.optional(),
    message_id: MessageId.optional(),
    state: StatesQuery.optional(),
    failure_class: FailureClass.optional(),
    event_type: EventTypeName.optional(),
    since: QueryTime.optional(),
    until: QueryTime.optional(),
  })
  // As for a bulk replay of the same window: an empty answer would read as "nothing failed".
  .superRefine(untilAfterSince);

/** GET /api/v1/dlq/overflow. */
export const OverflowListQuery = listQueryOf("dlq").extend({
  app_id: IdOrUid.optional(),
  endpoint_id: IdOrUid.optional(),
});

/** GET /api/v1/dlq/summary. */
export const SummaryQuery = z.object({ app_id: IdOrUid.optional() });

const Note = z.string().trim().min(1, "must not be empty").max(2000);

/** Resolve and abandon: the person's note is required — it is the incident's record. */
export const DecisionIn = z.object({ note: Note });

/** A single replay: an optional note for the history. */
export const ReplayIn = z.object({ note: Note.nullable().optional() }).optional();

const DateTimeIn = z.iso.datetime({ offset: true, error: DATE_TIME_ERROR });
/** A window's edge in a body, as named (see named-time.ts). */
const WindowTimeIn = DateTimeIn.transform(namedTime);
const DlqId = z.string().regex(/^dlq_[0-9A-Z]{26}$/, "must be a dead-letter record id (dlq_…)");

/**
 * A time window the wrong way round (until not after since) is a mistake: it names until. Judged
 * on the times as named, as a list's before and after are (validation.ts): one within a
 * millisecond is the right way round, and taken, though it holds no millisecond hookline keeps.
 */
function untilAfterSince(
  v: { since?: NamedTime | null; until?: NamedTime | null },
  ctx: z.RefinementCtx,
): void {
  if (isNamedTime(v.since) && isNamedTime(v.until) && !isLater(v.until, v.since)) {
    ctx.addIssue({
      code: "custom",
      path: ["until"],
      message: "must be later than since",
      params: { type: "value_error" },
    });
  }
}

/** A bulk replay: what to select (at least one field; ids alone), and how to run it. */
export const BulkReplayIn = z
  .object({
    appId: IdOrUid.optional(),
    endpointId: IdOrUid.optional(),
    failureClass: FailureClass.optional(),
    eventType: EventTypeName.optional(),
    since: WindowTimeIn.optional(),
    until: WindowTimeIn.optional(),
    ids: z.array(DlqId).min(1).max(10_000).optional(),
    ratePerSecond: z.number().min(0.01).max(1000).optional(),
    canarySize: z.int().min(0).max(10_000).optional(),
    canaryThreshold: z.number().min(0).max(1).optional(),
    startAt: DateTimeIn.optional(),
    note: Note.nullable().optional(),
  })
  .superRefine((v, ctx) => {
    const filters = [v.appId, v.endpointId, v.failureClass, v.eventType, v.since, v.until];
    const filtered = filters.some((f) => f !== undefined);
    if (!filtered && !v.ids) {
      ctx.addIssue({
        code: "custom",
        path: [],
        message:
          "choose what to replay: endpointId, appId, since/until, failureClass, eventType or ids",
        params: { type: "value_error" },
      });
    }
    untilAfterSince(v, ctx);
    if (filtered && v.ids) {
      ctx.addIssue({
        code: "custom",
        path: ["ids"],
        message: "ids cannot be combined with other filters",
        params: { type: "value_error" },
      });
    }
  });
/** A validated bulk replay request. */
export type BulkReplayInput = z.output<typeof BulkReplayIn>;

/** Svix RecoverIn; a window the wrong way round is refused, as a bulk replay's is. */
export const RecoverIn = z
  .object({ since: WindowTimeIn, until: WindowTimeIn.nullable().optional() })
  .superRefine(untilAfterSince);

// ---- output -----------------------------------------------------------------------------------

/** A record as listed (without payload, attempts and history). */
export const DeadLetterOut = z.object({
  id: z.string(),
  appId: z.string(),
  endpointId: z.string(),
  messageId: z.string(),
  eventId: z.string().nullable(),
  eventType: z.string(),
  deliveryId: z.string(),
  failureClass: FailureClass,
  reason: z.string(),
  finalStatus: z.int().nullable(),
  finalError: z.string().nullable(),
  signatureHeaders: z.record(z.string(), z.string()),
  state: z.enum(DLQ_STATES),
  replayCount: z.int(),
  failedReplays: z.int(),
  firstAttemptAt: Timestamp.nullable(),
  lastAttemptAt: Timestamp.nullable(),
  deadLetteredAt: Timestamp,
  updatedAt: Timestamp,
});

/** A record as listed. */
export function deadLetterOut(d: DeadLetter): z.output<typeof DeadLetterOut> {
  return {
    id: d.id,
    appId: d.appId,
    endpointId: d.endpointId,
    messageId: d.messageId,
    eventId: d.eventId,
    eventType: d.eventType,
    deliveryId: d.deliveryId,
    failureClass: d.failureClass,
    reason: d.reason,
    finalStatus: d.finalStatus,
    finalError: d.finalError,
    signatureHeaders: d.signatureHeaders,
    state: d.state,
    replayCount: d.replayCount,
    failedReplays: d.failedReplays,
    firstAttemptAt: iso(d.firstAttemptAt),
    lastAttemptAt: iso(d.lastAttemptAt),
    deadLetteredAt: iso(d.createdAt),
    updatedAt: iso(d.updatedAt),
  };
}

/** One attempt of a record (original or replay). */
export const DeadLetterAttemptOut = z.object({
  id: z.string(),
  deliveryId: z.string(),
  at: Timestamp,
  trigger: z.enum(["first", "retry", "manual", "probe", "replay"]),
  url: z.string(),
  status: z.int().nullable(),
  error: z.string().nullable(),
  errorDetail: z.string().nullable(),
  durationMs: z.int(),
  outcome: z.enum(["success", "rate_limited", "retryable", "permanent"]),
  response: z.string(),
  retryAfter: RetryAfterOut,
  retryAfterIgnored: RetryAfterIgnoredOut,
});

/** One attempt of a record. */
export function attemptOut(a: Attempt): z.output<typeof DeadLetterAttemptOut> {
  return {
    id: a.id,
    deliveryId: a.deliveryId,
    at: iso(a.at),
    trigger: a.trigger,
    url: a.url,
    status: a.status,
    error: a.error,
    errorDetail: a.errorDetail,
    durationMs: a.durationMs,
    outcome: a.outcome,
    response: a.responseSnippet,
    retryAfter: retryAfterOut(a.retryAfterMs),
    retryAfterIgnored: retryAfterIgnoredOut(a.retryAfterIgnored),
  };
}

const HistoryOut = z.object({
  at: Timestamp,
  actor: z.string(),
  action: z.enum([
    "dead_lettered",
    "replay_requested",
    "replayed",
    "replay_withdrawn",
    "resolved",
    "abandoned",
  ]),
  result: z.string(),
  note: z.string().nullable(),
  deliveryId: z.string().nullable(),
  jobId: z.string().nullable(),
});

function historyOut(e: DeadLetterEvent): z.output<typeof HistoryOut> {
  return { ...e, at: iso(e.at) };
}

/** The whole record. */
export const DeadLetterRecordOut = DeadLetterOut.extend({
  payload: z.object({}).catchall(z.unknown()).nullable().meta({
    description: "The message bytes exactly as sent (null if the message is gone)",
  }),
  attempts: z.array(DeadLetterAttemptOut),
  history: z.array(HistoryOut),
});

/** The whole record as JSON text, with the stored payload bytes spliced in as they are. */
export function deadLetterRecordJson(r: DeadLetterRecord): string {
  const head = JSON.stringify({
    ...deadLetterOut(r),
    attempts: r.attempts.map(attemptOut),
    history: r.history.map(historyOut),
  });
  const payload = r.payload ? r.payload.toString("utf8") : "null";
  return `${head.slice(0, -1)},"payload":${payload}}`;
}

const CircuitBrief = z.object({
  state: z.enum(["closed", "open", "half-open"]),
  since: Timestamp,
  nextProbeAt: Timestamp.nullable(),
});

/**
 * Open records by endpoint and failure class, with the endpoint's health; and a row for each
 * endpoint with nothing open whose overflow tombstones are still kept.
 */
export const DeadLetterSummaryOut = z.object({
  generatedAt: Timestamp,
  data: z.array(
    z.object({
      appId: z.string(),
      endpointId: z.string(),
      endpointUid: z.string().nullable(),
      url: z.string().nullable(),
      failureClass: FailureClass.nullable().meta({
        description:
          "null on the row of an endpoint with no open records, listed because dead letters " +
          "of it were not kept (overflowed > 0) and their tombstones still are",
      }),
      open: z.int(),
      replaying: z.int(),
      oldestAt: Timestamp.nullable().meta({ description: "null when open and replaying are 0" }),
      oldestAgeSeconds: z.int().nullable(),
      lastSuccessAt: Timestamp.nullable(),
      circuit: CircuitBrief,
      depth: z.int(),
      depthCap: z.int(),
      overflowed: z.int(),
      lastOverflowAt: Timestamp.nullable(),
    }),
  ),
});

/** A tombstone of a dead letter not kept because of the depth cap. */
export const OverflowOut = z.object({
  id: z.string(),
  deliveryId: z.string(),
  appId: z.string(),
  endpointId: z.string(),
  messageId: z.string(),
  eventId: z.string().nullable(),
  eventType: z.string(),
  failureClass: FailureClass,
  reason: z.string(),
  at: Timestamp,
});

/** A tombstone as listed. */
export function overflowOut(o: DeadLetterOverflow): z.output<typeof OverflowOut> {
  return { ...o, at: iso(o.at) };
}

/** A single replay's answer: its outcome, or why it is queued. */
export const ReplayOut = z.object({
  deadLetterId: z.string(),
  deliveryId: z.string(),
  result: z.enum(["succeeded", "failed", "withdrawn", "queued"]).meta({
    description:
      "withdrawn: it ended without a request, its endpoint disabled after the replay was " +
      "queued; it says nothing of the receiver and does not count toward abandoning the record",
  }),
  detail: z
    .string()
    .nullable()
    .meta({
      description:
        "queued: why and until when; withdrawn: why no request went out; failed: why no " +
        "request went out when hookline refused the endpoint's address, or, answered 429 with " +
        "a Retry-After, how long the receiver asked to wait; else null",
    }),
  attempt: DeadLetterAttemptOut.nullable(),
  record: DeadLetterOut,
});

/** A bulk replay job, its progress, what it waits for and, once it ends, why. */
export const ReplayJobOut = z.object({
  id: z.string(),
  task: z.enum(["dlq.replay", "endpoint.recover"]),
  state: z.enum(["scheduled", "running", "completed", "stopped", "cancelled"]),
  stage: z.enum(["canary", "rest"]),
  selection: z.object({
    appId: z.string().optional(),
    endpointId: z.string().optional(),
    failureClass: FailureClass.optional(),
    eventType: z.string().optional(),
    since: Timestamp.optional(),
    until: Timestamp.optional(),
    ids: z.array(z.string()).optional(),
  }),
  ratePerSecond: z.number(),
  canary: z.object({ size: z.int(), threshold: z.number() }),
  startAt: Timestamp,
  createdBy: z.string(),
  note: z.string().nullable(),
  reason: z
    .string()
    .nullable()
    .describe(
      "What a running job waits for, its canary's verdict, why a scheduled one due has not " +
        "started, or why an ended one ended; of a running job no hookline process holds (the " +
        "one running it stopped, was killed or stalled past its hold) that it waits to be " +
        "taken up again",
    ),
  progress: z.object({
    total: z.int().nullable(),
    queued: z.int(),
    succeeded: z.int(),
    failed: z.int(),
    skipped: z.int(),
    withdrawn: z.int(),
    /** Selected but not yet queued. */
    waiting: z.int().nullable(),
    /** Queued, result not in yet. */
    outstanding: z.int(),
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  startedAt: Timestamp.nullable(),
  finishedAt: Timestamp.nullable(),
});

/** A job as the API shows it at `now` (its reason is worked out then: see reasonShown). */
export function replayJobOut(j: ReplayJob, now: number): z.output<typeof ReplayJobOut> {
  const p = j.progress;
  const { since, until, ...selection } = j.selection;
  return {
    id: j.id,
    task: j.task,
    state: j.state,
    stage: j.stage,
    selection: {
      ...selection,
      ...(since === undefined ? {} : { since: iso(since) }),
      ...(until === undefined ? {} : { until: iso(until) }),
    },
    ratePerSecond: j.ratePerSecond,
    canary: { size: j.canarySize, threshold: j.canaryThreshold },
    startAt: iso(j.startAt),
    createdBy: j.createdBy,
    note: j.note,
    reason: reasonShown(j, now),
    progress: {
      ...p,
      waiting: p.total === null ? null : p.total - p.queued - p.skipped,
      outstanding: p.queued - p.succeeded - p.failed - p.withdrawn,
    },
    createdAt: iso(j.createdAt),
    updatedAt: iso(j.updatedAt),
    startedAt: iso(j.startedAt),
    finishedAt: iso(j.finishedAt),
  };
}

/** Svix RecoverOut: a background task's id, status and type. */
export const RecoverOut = z.object({
  id: z.string(),
  status: z.enum(["running", "finished", "failed"]),
  task: z.literal("endpoint.recover"),
  updatedAt: Timestamp,
});

/** A job as Svix's background-task status: running until it ends; stopped or cancelled failed. */
export function recoverOut(j: ReplayJob): z.output<typeof RecoverOut> {
  const status =
    j.state === "completed"
      ? "finished"
      : j.state === "stopped" || j.state === "cancelled"
        ? "failed"
        : "running";
  return { id: j.id, status, task: "endpoint.recover", updatedAt: iso(j.updatedAt) };
}
