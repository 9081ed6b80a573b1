/** The `api_tokens` row, the same in both dialects, mapped to and from an ApiToken. */
import type { ApiToken } from "../domain/types.js";

/**
 * Column order of every statement below (expires_at arrived with migration 6, feature_flags, a
 * JSON array kept as text in both dialects, with 12).
 */
export const API_TOKEN_COLUMNS =
  "id, name, scope, app_id, hash, created_at, revoked_at, expires_at, feature_flags";

export function apiTokenValues(t: ApiToken): unknown[] {
  const flags = t.featureFlags?.length ? JSON.stringify(t.featureFlags) : null;
  return [
    t.id,
    t.name,
    t.scope,
    t.appId,
    t.hash,
    t.createdAt,
    t.revokedAt,
    t.expiresAt ?? null,
    flags,
  ];
}

export function apiTokenFromRow(row: Record<string, unknown>): ApiToken {
  return {
    id: String(row.id),
    name: String(row.name),
    scope: row.scope === "admin" ? "admin" : "app",
    appId: row.app_id == null ? null : String(row.app_id),
    hash: String(row.hash),
    createdAt: Number(row.created_at),
    revokedAt: row.revoked_at == null ? null : Number(row.revoked_at),
    expiresAt: row.expires_at == null ? null : Number(row.expires_at),
    featureFlags:
      row.feature_flags == null ? null : (JSON.parse(String(row.feature_flags)) as string[]),
  };
}
