/**
 * What a batch of recorded outcomes adds to each endpoint's stats row (`endpoint_stats`), the same
 * rule in both dialects: how its receiver's Retry-After was used, and its latest success.
 */
import type { DeliveryOutcome } from "./port.js";

/** The additions to one endpoint's row. */
export interface StatsDelta {
  honoured: number;
  capped: number;
  ignored: number;
  /** The latest success in the batch, or null for none. */
  lastSuccessAt: number | null;
}

/** Adds one recorded outcome to `deltas` (by endpoint id); outcomes that change nothing add no row. */
export function addToStats(deltas: Map<string, StatsDelta>, o: DeliveryOutcome): void {
  const succeeded = o.next.kind === "succeeded";
  if (!o.retryAfter && !succeeded) return;
  let d = deltas.get(o.endpointId);
  if (!d)
    deltas.set(o.endpointId, (d = { honoured: 0, capped: 0, ignored: 0, lastSuccessAt: null }));
  if (o.retryAfter === "honoured") d.honoured++;
  if (o.retryAfter === "capped") d.capped++;
  if (o.retryAfter === "ignored") d.ignored++;
  if (succeeded) d.lastSuccessAt = Math.max(d.lastSuccessAt ?? 0, o.at);
}
