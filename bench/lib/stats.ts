/** Small numeric helpers for the benchmark: percentiles, rates over arrival times, peaks. */

/** The p-th percentile (0–100) of `values`, nearest-rank; null when there are none. */
export function percentile(values: ArrayLike<number>, p: number): number | null {
  const n = values.length;
  if (n === 0) return null;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1));
  return sorted[rank]!;
}

/** p50, p99 and max of a list of latencies (ms). */
export function latencySummary(values: ArrayLike<number>): {
  p50: number | null;
  p99: number | null;
  max: number | null;
  n: number;
} {
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  const at = (p: number) =>
    n ? sorted[Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1))]! : null;
  return { p50: at(50), p99: at(99), max: n ? sorted[n - 1]! : null, n };
}

/**
 * Events per second between arrival `from` and arrival `to` (indexes into ascending times, ms):
 * `to - from` intervals over the time they took. Null when the window is empty.
 */
export function rateBetween(times: ArrayLike<number>, from: number, to: number): number | null {
  const last = Math.min(to, times.length - 1);
  if (last <= from || from < 0) return null;
  const ms = times[last]! - times[from]!;
  return ms > 0 ? ((last - from) / ms) * 1000 : null;
}

/** The largest number of ascending `times` (ms) inside any window of `windowMs`. */
export function peakInWindow(times: ArrayLike<number>, windowMs = 1000): number {
  let best = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while (times[end]! - times[start]! >= windowMs) start++;
    best = Math.max(best, end - start + 1);
  }
  return best;
}

/** The median of a few numbers (used to steady a figure measured more than once). */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** A high-resolution wall-clock reading in ms since the epoch, comparable across processes. */
export function wallNow(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * Deliveries due in hookline's first second of work are its warm-up (code not yet optimized,
 * connections being opened): the lag scenarios report them beside the steady state, not in it.
 */
export const WARM_UP_MS = 1_000;

/**
 * How long after being due each recorded delivery arrived (arrival minus due time, ms), split at
 * `steadyFrom`: deliveries due before it fell in hookline's first moments of work after start-up
 * (code not yet optimized, connections being opened), the rest in its steady state.
 */
export function lagsByDueTime(
  record: { ids: readonly string[] | null; times: ArrayLike<number> },
  dueOf: ReadonlyMap<string, number>,
  steadyFrom: number,
): { warmUp: number[]; steady: number[] } {
  const warmUp: number[] = [];
  const steady: number[] = [];
  record.ids?.forEach((id, i) => {
    const due = dueOf.get(id);
    if (due === undefined) return;
    (due < steadyFrom ? warmUp : steady).push(record.times[i]! - due);
  });
  return { warmUp, steady };
}
