/**
 * Idempotency keys picked by scope, as both adapters delete them: an exact scope by the primary
 * key, a prefix as a range of it (`scope >= prefix AND scope < end`), never a scan of every key
 * (one a POST for 24 h: with the Svix clients' automatic keys, one per message accepted).
 */
import type { IdempotencyScopes } from "./port.js";

/** A half-open range of scopes: from `from` (included) to `to` (left out). */
export interface ScopeRange {
  from: string;
  to: string;
}

/**
 * The range of the scopes that begin with `prefix`. Both stores order scopes by their bytes
 * (SQLite's BINARY, PostgreSQL's "C" collation), so the end is the prefix with its last
 * character one higher; an ASCII last character keeps that one byte.
 */
export function prefixRange(prefix: string): ScopeRange {
  const last = prefix.charCodeAt(prefix.length - 1);
  if (!(last >= 0x20 && last < 0x7e)) {
    throw new TypeError(`an idempotency scope prefix must end in printable ASCII: ${prefix}`);
  }
  return { from: prefix, to: prefix.slice(0, -1) + String.fromCharCode(last + 1) };
}

/** The ranges `scopes` picks: each exact scope alone, and each prefix's range. */
export function scopeRanges(scopes: IdempotencyScopes): { exact: string[]; ranges: ScopeRange[] } {
  return {
    exact: [...new Set(scopes.exact)],
    ranges: [...new Set(scopes.prefixes)].map(prefixRange),
  };
}
