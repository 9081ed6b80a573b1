/**
 * An attempt's `retryAfter`: how its answer's Retry-After set the wait before the next attempt,
 * and `retryAfterIgnored`: what of one hookline ignored, and why. One shape each wherever an
 * attempt is answered (the attempts API, a dead-letter record's attempts).
 */
import { z } from "zod";
import type { IgnoredRetryAfter } from "../../domain/types.js";
import { RETRY_AFTER_CAP_MS } from "../../engine/retry-after.js";

/** The wait asked for and the wait kept, in seconds; null where the Retry-After set none. */
export const RetryAfterOut = z
  .object({ askedSeconds: z.number(), waitSeconds: z.number() })
  .nullable()
  .describe(
    "How the Retry-After of the receiver's answer set the wait before the next attempt: the " +
      "wait it asked for, and the wait hookline kept (the same, or 4 h when it asked for " +
      "more, up to 24 h); null when the answer had none, hookline ignored it (past 24 h, or " +
      "not a number of seconds or a date: see retryAfterIgnored), no retry followed, or the attempt was made " +
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

/** A Retry-After hookline ignored, and why; null where there was none to ignore. */
export const RetryAfterIgnoredOut = z
  .discriminatedUnion("reason", [
    z.object({ reason: z.literal("too-long"), askedSeconds: z.number() }),
    z.object({ reason: z.literal("malformed"), value: z.string() }),
  ])
  .nullable()
  .describe(
    "The Retry-After of the receiver's answer that hookline ignored, when the retry ladder then " +
      "set the wait before the next attempt: too-long, a wait past 24 h (askedSeconds, the wait " +
      "it asked for), or malformed, neither a number of seconds nor an HTTP date (value, as it " +
      "came, cut to 64 characters then …, control and direction characters replaced). null when " +
      "the answer had none, hookline followed it (see retryAfter), no retry followed, or the " +
      "attempt was made before hookline kept it",
  );

/** The ignored Retry-After of an attempt (`retryAfterIgnored`). */
export function retryAfterIgnoredOut(
  ignored: IgnoredRetryAfter | null | undefined,
): z.output<typeof RetryAfterIgnoredOut> {
  if (!ignored) return null;
  return ignored.reason === "too-long"
    ? { reason: "too-long", askedSeconds: ignored.askedMs / 1000 }
    : { reason: "malformed", value: ignored.value };
}
