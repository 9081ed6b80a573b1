/**
 * An attempt's ignored Retry-After in one text column (`attempts.retry_after_ignored`), the same on
 * both adapters: `too-long <ms asked>` or `malformed <value>`. One column keeps it one more value
 * in the attempt inserts already made; it is written on the rare attempt that has one.
 */
import type { IgnoredRetryAfter } from "../domain/types.js";

/** The column's text for `ignored`; null without one. */
export function ignoredRetryAfterText(
  ignored: IgnoredRetryAfter | null | undefined,
): string | null {
  if (!ignored) return null;
  return ignored.reason === "too-long"
    ? `too-long ${ignored.askedMs}`
    : `malformed ${ignored.value}`;
}

/** The column's text read back; null for NULL, or for a text this version cannot read. */
export function ignoredRetryAfterFrom(text: unknown): IgnoredRetryAfter | null {
  if (typeof text !== "string") return null;
  const space = text.indexOf(" ");
  const reason = space < 0 ? text : text.slice(0, space);
  const rest = space < 0 ? "" : text.slice(space + 1);
  if (reason === "malformed") return { reason, value: rest };
  if (reason === "too-long") {
    const askedMs = Number(rest);
    return rest !== "" && !Number.isNaN(askedMs) ? { reason, askedMs } : null;
  }
  return null;
}
