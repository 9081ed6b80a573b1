/** Row shapes of the SQLite tables and their mapping to and from domain records. */
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
} from "../../domain/types.js";

/** One row as better-sqlite3 returns it. */
export type Row = Record<string, unknown>;

const json = <T>(v: unknown, fallback: T): T =>
  typeof v === "string" ? (JSON.parse(v) as T) : fallback;
export const toJson = (v: unknown): string | null => (v == null ? null : JSON.stringify(v));
const num = (v: unknown): number | null => (v == null ? null : Number(v));
const str = (v: unknown): string | null => (v == null ? null : String(v));

export function applicationFromRow(r: Row): Application {
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

export function endpointFromRow(r: Row): Endpoint {
  return {
    id: String(r.id),
    appId: String(r.app_id),
    uid: str(r.uid),
    url: String(r.url),
    description: String(r.description),
    version: Number(r.version),
    disabled: Boolean(r.disabled),
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

export function eventTypeFromRow(r: Row): EventType {
  return {
    name: String(r.name),
    description: String(r.description),
    archived: Boolean(r.archived),
    deprecated: Boolean(r.deprecated),
    featureFlags: json(r.feature_flags, null),
    groupName: str(r.group_name),
    schemas: json(r.schemas, null),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

export function messageFromRow(r: Row): Message {
  return {
    id: String(r.id),
    appId: String(r.app_id),
    eventType: String(r.event_type),
    eventId: str(r.event_id),
    channels: json(r.channels, null),
    tags: json(r.tags, null),
    payload: r.payload as Buffer,
    createdAt: Number(r.created_at),
  };
}

export function deliveryFromRow(r: Row): Delivery {
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

export function attemptFromRow(r: Row): Attempt {
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
  };
}

export function deadLetterFromRow(r: Row): DeadLetter {
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

export function deadLetterEventFromRow(r: Row): DeadLetterEvent {
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

export function overflowFromRow(r: Row): DeadLetterOverflow {
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

export function replayJobFromRow(r: Row): ReplayJob {
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

export function circuitFromRow(r: Row): CircuitRecord {
  return {
    state: r.state as CircuitRecord["state"],
    since: Number(r.since),
    reason: r.reason == null ? null : String(r.reason),
    nextProbeAt: r.next_probe_at == null ? null : Number(r.next_probe_at),
    reopenCount: Number(r.reopen_count),
  };
}

// ---- domain → named statement parameters ----------------------------------------------------

export function appParams(a: Application) {
  return {
    id: a.id,
    uid: a.uid,
    name: a.name,
    rate_limit: a.rateLimit,
    metadata: JSON.stringify(a.metadata),
    delivery_policy: toJson(a.deliveryPolicy),
    created_at: a.createdAt,
    updated_at: a.updatedAt,
  };
}

export function endpointParams(e: Endpoint) {
  return {
    id: e.id,
    app_id: e.appId,
    uid: e.uid,
    url: e.url,
    description: e.description,
    version: e.version,
    disabled: e.disabled ? 1 : 0,
    disabled_reason: e.disabledReason,
    filter_types: toJson(e.filterTypes),
    channels: toJson(e.channels),
    headers: JSON.stringify(e.headers),
    metadata: JSON.stringify(e.metadata),
    rate_limit: e.rateLimit,
    secrets: JSON.stringify(e.secrets),
    delivery_policy: toJson(e.deliveryPolicy),
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  };
}

export function eventTypeParams(e: EventType) {
  return {
    name: e.name,
    description: e.description,
    archived: e.archived ? 1 : 0,
    deprecated: e.deprecated ? 1 : 0,
    feature_flags: toJson(e.featureFlags),
    group_name: e.groupName,
    schemas: toJson(e.schemas),
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  };
}
