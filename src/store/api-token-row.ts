/** The `api_tokens` row, the same in both dialects, mapped to and from an ApiToken. */
import type { ApiToken } from "../domain/types.js";

/** Column order of every statement below (expires_at arrived with migration 6). */
export const API_TOKEN_COLUMNS =
  "id, name, scope, app_id, hash, created_at, revoked_at, expires_at";

export function apiTokenValues(t: ApiToken): unknown[] {
  return [t.id, t.name, t.scope, t.appId, t.hash, t.createdAt, t.revokedAt, t.expiresAt ?? null];
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
  };
}
