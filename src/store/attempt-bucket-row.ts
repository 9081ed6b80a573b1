/** An attempt bucket row, the same shape in both dialects (see `Store.attemptBuckets`). */
import type { AttemptBucket } from "../domain/types.js";

/** A bucket row, the same shape in both dialects. */
export function bucketFromRow(row: Record<string, unknown>): AttemptBucket {
  return {
    start: Number(row.start),
    attempts: Number(row.attempts),
    successes: Number(row.successes),
    meanDurationMs: Math.round(Number(row.mean_ms)),
    maxDurationMs: Number(row.max_ms),
  };
}
