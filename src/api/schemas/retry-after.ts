/**
 * An attempt's `retryAfter`: how its answer's Retry-After set the wait before the next attempt.
 * One shape wherever an attempt is answered (the attempts API, a dead-letter record's attempts).
 */
import { z } from "zod";
import { RETRY_AFTER_CAP_MS } from "../../engine/retry-after.js";

/** The wait asked for and the wait kept, in seconds; null where the Retry-After set none. */
export const RetryAfterOut = z
  .object({ askedSeconds: z.number(), waitSeconds: z.number() })
  .nullable()
  .describe(
    "How the Retry-After of the receiver's answer set the wait before the next attempt: the " +
      "wait it asked for, and the wait hookline kept (the same, or 4 h when it asked for " +
      "more, up to 24 h); null when the answer had none, hookline ignored it (past 24 h, or " +
      "not a number of seconds or a date), no retry followed, or the attempt was made " +
      "before hookline kept it. An open circuit may hold the retry longer, until its probe",
  );

/** The Retry-After part of an attempt (`retryAfter`), from the wait it asked for. */
export function retryAfterOut(askedMs: number | null | undefined): z.output<typeof RetryAfterOut> {
  if (askedMs == null) return null;
  // Kept only when it set the retry's time, so above the cap it was capped (retry-after.ts).
  return {
    askedSeconds: askedMs / 1000,
    waitSeconds: Math.min(askedMs, RETRY_AFTER_CAP_MS) / 1000,
  };
}
