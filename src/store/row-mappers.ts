/**
 * Row -> domain mapping, shared by every adapter: the tables have the same columns everywhere, and
 * only how a driver hands back JSON and booleans differs, so each adapter passes its decoders.
 */
import { ignoredRetryAfterFrom } from "./ignored-retry-after.js";
import type {
  Application,
  Attempt,
  CircuitRecord,
  DeadLetter,
  DeadLetterEvent,
  DeadLetterOverflow,
  Delivery,
  Endpoint,
  EventType,
  Message,
  ReplayJob,
} from "../domain/types.js";
import type {
  AlertRecord,
  DueEndpoints,
  DueEndpointsRequest,
  JobSkips,
  NewMessage,
} from "./port.js";

/** One row as a driver returns it, keyed by column name. */
export type Row = Record<string, unknown>;

/** How one driver hands back the values that differ between databases. */
export interface RowDecoders {
  /** A JSON column's value, or `fallback` when it is SQL NULL. */
  json<T>(value: unknown, fallback: T): T;
  bool(value: unknown): boolean;
}

const num = (v: unknown): number | null => (v == null ? null : Number(v));
const str = (v: unknown): string | null => (v == null ? null : String(v));

/** The mappers from rows to domain records, for one driver's decoders. */
export function rowMappers({ json, bool }: RowDecoders) {
  function applicationFromRow(r: Row): Application {
    return {
      id: String(r.id),
      uid: str(r.uid),
      name: String(r.name),
      rateLimit: num(r.rate_limit),
      metadata: json(r.metadata, {}),
      deliveryPolicy: json(r.delivery_policy, null),
      createdAt: Number(r.created_at),
      updatedAt: Number(r.updated_at),
    };
  }

  function endpointFromRow(r: Row): Endpoint {
    return {
      id: String(r.id),
      appId: String(r.app_id),
      uid: str(r.uid),
      url: String(r.url),
      description: String(r.description),
      version: Number(r.version),
      disabled: bool(r.disabled),
      disabledReason: str(r.disabled_reason),
      filterTypes: json(r.filter_types, null),
      channels: json(r.channels, null),
      headers: json(r.headers, {}),
      metadata: json(r.metadata, {}),
      rateLimit: num(r.rate_limit),
      secrets: json(r.secrets, { current: "", previous: [] }),
      deliveryPolicy: json(r.delivery_policy, null),
      createdAt: Number(r.created_at),
      updatedAt: Number(r.updated_at),
    };
  }

  function eventTypeFromRow(r: Row): EventType {
    return {
      name: String(r.name),
      description: String(r.description),
      archived: bool(r.archived),
      deprecated: bool(r.deprecated),
      featureFlags: json(r.feature_flags, null),
      groupName: str(r.group_name),
      schemas: json(r.schemas, null),
      createdAt: Number(r.created_at),
      updatedAt: Number(r.updated_at),
    };
  }

  function messageFromRow(r: Row): Message {
    return {
      id: String(r.id),
      appId: String(r.app_id),
      eventType: String(r.event_type),
      eventId: str(r.event_id),
      channels: json(r.channels, null),
      tags: json(r.tags, null),
      payload: r.payload as Buffer,
      createdAt: Number(r.created_at),
      deliverAt: num(r.deliver_at),
    };
  }

  function deliveryFromRow(r: Row): Delivery {
    return {
      id: String(r.id),
      appId: String(r.app_id),
      messageId: String(r.message_id),
      endpointId: String(r.endpoint_id),
      state: r.state as Delivery["state"],
      origin: r.origin as Delivery["origin"],
      attemptCount: Number(r.attempt_count),
      nextAttemptAt: num(r.next_attempt_at),
      firstAttemptAt: num(r.first_attempt_at),
      lastAttemptAt: num(r.last_attempt_at),
      lastDelayMs: num(r.last_delay_ms),
      deadLetterId: str(r.dead_letter_id),
      createdAt: Number(r.created_at),
    };
  }

  function attemptFromRow(r: Row): Attempt {
    return {
      id: String(r.id),
      deliveryId: String(r.delivery_id),
      appId: String(r.app_id),
      messageId: String(r.message_id),
      endpointId: String(r.endpoint_id),
      at: Number(r.at),
      trigger: r.trigger as Attempt["trigger"],
      url: String(r.url),
      status: num(r.status),
      error: str(r.error) as Attempt["error"],
      errorDetail: str(r.error_detail),
      durationMs: Number(r.duration_ms),
      responseSnippet: String(r.response_snippet),
      outcome: r.outcome as Attempt["outcome"],
      retryAfterMs: num(r.retry_after_ms),
      retryAfterIgnored: ignoredRetryAfterFrom(r.retry_after_ignored),
    };
  }

  function deadLetterFromRow(r: Row): DeadLetter {
    return {
      id: String(r.id),
      deliveryId: String(r.delivery_id),
      appId: String(r.app_id),
      endpointId: String(r.endpoint_id),
      messageId: String(r.message_id),
      eventId: str(r.event_id),
      eventType: String(r.event_type),
      failureClass: r.failure_class as DeadLetter["failureClass"],
      reason: String(r.reason),
      finalStatus: num(r.final_status),
      finalError: str(r.final_error),
      signatureHeaders: json(r.signature_headers, {}),
      firstAttemptAt: num(r.first_attempt_at),
      lastAttemptAt: num(r.last_attempt_at),
      state: r.state as DeadLetter["state"],
      replayCount: Number(r.replay_count),
      failedReplays: Number(r.failed_replays ?? 0),
      createdAt: Number(r.created_at),
      updatedAt: Number(r.updated_at ?? r.created_at),
    };
  }

  function deadLetterEventFromRow(r: Row): DeadLetterEvent {
    return {
      at: Number(r.at),
      actor: String(r.actor),
      action: r.action as DeadLetterEvent["action"],
      result: String(r.result),
      note: str(r.note),
      deliveryId: str(r.delivery_id),
      jobId: str(r.job_id),
    };
  }

  function overflowFromRow(r: Row): DeadLetterOverflow {
    return {
      id: String(r.id),
      deliveryId: String(r.delivery_id),
      appId: String(r.app_id),
      endpointId: String(r.endpoint_id),
      messageId: String(r.message_id),
      eventId: str(r.event_id),
      eventType: String(r.event_type),
      failureClass: r.failure_class as DeadLetterOverflow["failureClass"],
      reason: String(r.reason),
      at: Number(r.at),
    };
  }

  function replayJobFromRow(r: Row): ReplayJob {
    return {
      id: String(r.id),
      task: r.task as ReplayJob["task"],
      state: r.state as ReplayJob["state"],
      stage: r.stage as ReplayJob["stage"],
      selection: json(r.selection, {}),
      ratePerSecond: Number(r.rate_per_second),
      canarySize: Number(r.canary_size),
      canaryThreshold: Number(r.canary_threshold),
      startAt: Number(r.start_at),
      createdBy: String(r.created_by),
      note: str(r.note),
      reason: str(r.reason),
      leaseUntil: num(r.lease_until),
      progress: {
        total: num(r.total),
        queued: Number(r.queued),
        succeeded: Number(r.succeeded),
        failed: Number(r.failed),
        skipped: Number(r.skipped),
        withdrawn: Number(r.withdrawn),
      },
      createdAt: Number(r.created_at),
      updatedAt: Number(r.updated_at),
      startedAt: num(r.started_at),
      finishedAt: num(r.finished_at),
    };
  }

  function circuitFromRow(r: Row): CircuitRecord {
    return {
      state: r.state as CircuitRecord["state"],
      since: Number(r.since),
      reason: str(r.reason),
      nextProbeAt: num(r.next_probe_at),
      reopenCount: Number(r.reopen_count),
      openedAt: num(r.opened_at),
    };
  }

  return {
    applicationFromRow,
    endpointFromRow,
    eventTypeFromRow,
    messageFromRow,
    deliveryFromRow,
    attemptFromRow,
    deadLetterFromRow,
    deadLetterEventFromRow,
    overflowFromRow,
    replayJobFromRow,
    circuitFromRow,
  };
}

/**
 * A window of endpoints with pending deliveries, each with its earliest due time (`ep`, `due`,
 * in id order), as both stores' `dueEndpoints` read it: those due by `now` and not excluded, and
 * where the look stopped if the window was full.
 */
export function dueEndpointsFrom(
  rows: readonly Row[],
  req: DueEndpointsRequest,
  window: number,
): DueEndpoints {
  const excluded = new Set(req.excludeEndpoints);
  const endpoints: string[] = [];
  for (const r of rows) {
    const id = String(r.ep);
    if (r.due != null && Number(r.due) <= req.now && !excluded.has(id)) endpoints.push(id);
  }
  const reached = rows.length < window ? null : String(rows[rows.length - 1]!.ep);
  return { endpoints, reached };
}

/** The message an accept has just written, as the store answers it (no row read back). */
export function acceptedMessage(msg: NewMessage): Message {
  return {
    id: msg.id,
    appId: msg.appId,
    eventType: msg.eventType,
    eventId: msg.eventId,
    channels: msg.channels,
    tags: msg.tags,
    payload: msg.payload,
    createdAt: msg.now,
    deliverAt: msg.deliverAt ?? null,
  };
}

/** An alert row as the port returns it (every column is a number or a string in both stores). */
export function alertFromRow(r: Row): AlertRecord {
  return {
    id: String(r.id),
    rule: String(r.rule),
    severity: r.severity as AlertRecord["severity"],
    summary: String(r.summary),
    endpointId: str(r.endpoint_id),
    value: Number(r.value),
    threshold: Number(r.threshold),
    since: Number(r.since),
    resolvedAt: num(r.resolved_at),
    supersededBy: str(r.superseded_by),
  };
}

/** Whether a `replay_jobs` row is a running job held by `runner` (its lease names it). */
export function runningFor(row: Row, runner: string): boolean {
  return row.state === "running" && row.held_by === runner;
}

/** A count of a job's items skipped for one reason, as its `skips` statement reads them. */
export function skipsFromRow(r: Row): JobSkips {
  return { detail: String(r.detail ?? "skipped"), records: Number(r.n) };
}

/**
 * The note a bulk replay writes into each record's history: which job, and the person's note on
 * it (the incident it belongs to), since the history is what an operator reads afterwards.
 */
export function jobReplayNote(job: { id: string; note: string | null }): string {
  return job.note ? `bulk replay ${job.id}: ${job.note}` : `bulk replay ${job.id}`;
}

/**
 * The reason of a job that, at its start, skipped the records of endpoints other jobs hold: one
 * bulk replay at a time per endpoint, or their rates would add up.
 */
export function heldElsewhereReason(
  skipped: number,
  held: { jobId: string; endpointId: string }[],
): string {
  const which = held.map((h) => `replay job ${h.jobId} holds endpoint ${h.endpointId}`);
  return (
    `${skipped} selected record${skipped === 1 ? "" : "s"} skipped: ${which.join("; ")} ` +
    "(one bulk replay at a time per endpoint)"
  );
}
