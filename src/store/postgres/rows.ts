/**
 * Row shapes of the PostgreSQL tables and their mapping to and from domain records. pg hands back
 * `json` columns parsed, BIGINT as numbers (see database.ts), booleans and BYTEA as Buffers.
 */
import type { Application, Endpoint, EventType } from "../../domain/types.js";
import { rowMappers } from "../row-mappers.js";

/** A value for a `json` column: its JSON text, or SQL NULL for null (as in SQLite). */
export const toJson = (v: unknown): string | null => (v == null ? null : JSON.stringify(v));

// pg parses `json` columns itself and returns real booleans.
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
  json: <T>(v: unknown, fallback: T): T => (v == null ? fallback : (v as T)),
  bool: (v) => v === true,
});

// ---- domain → positional statement parameters (in the column order of the statements) -------

/** An update's parameters: the insert's without `created_at` (second to last), which never changes. */
const withoutCreatedAt = (values: unknown[]): unknown[] => [
  ...values.slice(0, -2),
  values[values.length - 1],
];

/** id, uid, name, rate_limit, metadata, delivery_policy, created_at, updated_at */
export function appValues(a: Application): unknown[] {
  return [
    a.id,
    a.uid,
    a.name,
    a.rateLimit,
    JSON.stringify(a.metadata),
    toJson(a.deliveryPolicy),
    a.createdAt,
    a.updatedAt,
  ];
}

/** id, uid, name, rate_limit, metadata, delivery_policy, updated_at */
export const appUpdateValues = (a: Application): unknown[] => withoutCreatedAt(appValues(a));

/**
 * id, app_id, uid, url, description, version, disabled, disabled_reason, filter_types, channels,
 * headers, metadata, rate_limit, secrets, delivery_policy, created_at, updated_at
 */
export function endpointValues(e: Endpoint): unknown[] {
  return [
    e.id,
    e.appId,
    e.uid,
    e.url,
    e.description,
    e.version,
    e.disabled,
    e.disabledReason,
    toJson(e.filterTypes),
    toJson(e.channels),
    JSON.stringify(e.headers),
    JSON.stringify(e.metadata),
    e.rateLimit,
    JSON.stringify(e.secrets),
    toJson(e.deliveryPolicy),
    e.createdAt,
    e.updatedAt,
  ];
}

/** As endpointValues, without created_at. */
export const endpointUpdateValues = (e: Endpoint): unknown[] => withoutCreatedAt(endpointValues(e));

/**
 * name, description, archived, deprecated, feature_flags, group_name, schemas, created_at,
 * updated_at
 */
export function eventTypeValues(e: EventType): unknown[] {
  return [
    e.name,
    e.description,
    e.archived,
    e.deprecated,
    toJson(e.featureFlags),
    e.groupName,
    toJson(e.schemas),
    e.createdAt,
    e.updatedAt,
  ];
}

/** As eventTypeValues, without created_at. */
export const eventTypeUpdateValues = (e: EventType): unknown[] =>
  withoutCreatedAt(eventTypeValues(e));
