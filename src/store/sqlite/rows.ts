/** Row shapes of the SQLite tables and their mapping to and from domain records. */
import type { Application, Endpoint, EventType } from "../../domain/types.js";
import { rowMappers, type Row } from "../row-mappers.js";

export type { Row };

export const toJson = (v: unknown): string | null => (v == null ? null : JSON.stringify(v));

// SQLite keeps JSON as text and booleans as 0/1.
export const {
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
} = rowMappers({
  json: <T>(v: unknown, fallback: T): T =>
    typeof v === "string" ? (JSON.parse(v) as T) : fallback,
  bool: (v) => Boolean(v),
});

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
