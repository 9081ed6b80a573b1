/**
 * What a batch of recorded outcomes adds to each endpoint's stats row (`endpoint_stats`), the same
 * rule in both dialects: how its receiver's Retry-After was used, and its latest success.
 */
import type { CircuitRecord, EndpointStats } from "../domain/types.js";
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

/** An `endpoint_stats` row as the port gives it (no row: nothing counted yet). */
export function statsFromRow(r: Record<string, unknown> | undefined): EndpointStats {
  return {
    retryAfter: {
      honoured: Number(r?.retry_after_honoured ?? 0),
      capped: Number(r?.retry_after_capped ?? 0),
      ignored: Number(r?.retry_after_ignored ?? 0),
    },
    lastSuccessAt: r?.last_success_at == null ? null : Number(r.last_success_at),
  };
}

/** The stored circuit and stats of one endpoint, as `getEndpointsHealth` gives them. */
export interface EndpointHealthRead {
  circuit: CircuitRecord | null;
  stats: EndpointStats;
}

/** Each of `ids` with its row of each table, if any. */
export function healthOf<R extends Record<string, unknown>>(
  ids: string[],
  circuits: R[],
  stats: R[],
  circuitFromRow: (row: R) => CircuitRecord,
): Map<string, EndpointHealthRead> {
  const circuitBy = new Map(circuits.map((r) => [String(r.endpoint_id), r]));
  const statsBy = new Map(stats.map((r) => [String(r.endpoint_id), r]));
  return new Map(
    ids.map((id) => {
      const c = circuitBy.get(id);
      return [id, { circuit: c ? circuitFromRow(c) : null, stats: statsFromRow(statsBy.get(id)) }];
    }),
  );
}
