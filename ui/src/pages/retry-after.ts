/**
 * What a receiver's Retry-After did to the next attempt, in the dashboard's words: on an attempt
 * unfolded, at the end of its line in a list, and beside a message's next attempt. One place, so
 * the same answer reads the same wherever it is shown.
 */
import { seconds } from "../format.js";
import type { AskedWait, IgnoredRetryAfter } from "../types.js";

/**
 * How a Retry-After hookline followed set the next attempt: no wait (`Retry-After: 0`, a date
 * already past, or one so near that its wait reads as 0, as 0.037 s does), the wait asked for,
 * or hookline's cap on it.
 */
export type WaitKind = "none" | "asked" | "capped";

/** Below this a wait reads "0 s" ({@link seconds} says tenths): it is no wait. */
const NO_WAIT_BELOW_S = 0.05;

export function waitKind(ra: AskedWait): WaitKind {
  if (ra.askedSeconds < NO_WAIT_BELOW_S) return "none";
  return ra.waitSeconds < ra.askedSeconds ? "capped" : "asked";
}

/**
 * What the receiver's Retry-After asked of the next attempt and what hookline did with it, on the
 * attempt unfolded: once the retry had gone, or the delivery was given up, someone reading why it
 * came 2 min (or 4 h) after this attempt, not at the ladder's seconds, had only the status. The
 * wait, not the header's text: a Retry-After may be a date.
 */
export function askedWaitWords(ra: AskedWait): string {
  switch (waitKind(ra)) {
    case "none":
      return (
        "The endpoint asked for no wait before the next attempt, so hookline made it due as soon " +
        "as this answer came."
      );
    case "asked":
      return (
        `The endpoint asked for ${seconds(ra.askedSeconds)} before the next attempt, and ` +
        "hookline set it that long after this answer, as asked."
      );
    case "capped": {
      const kept = seconds(ra.waitSeconds);
      return (
        `The endpoint asked for ${seconds(ra.askedSeconds)}; hookline waits at most ${kept}, so ` +
        `it set the next attempt ${kept} after this answer.`
      );
    }
  }
}

/** The note beneath {@link askedWaitWords}: what may have moved the next attempt since. */
export function askedWaitNote(ra: AskedWait): string {
  return (
    "The endpoint's circuit, had it opened, may have held the next attempt longer" +
    // With no wait, there was nothing for a resend to bring forward.
    (waitKind(ra) === "none" ? "." : ", and a resend may have brought it forward.")
  );
}

/** Past a year an ignored wait is not given as a number: it says nothing more. */
const pastAYear = (askedSeconds: number): boolean => askedSeconds > 365 * 24 * 3600;

/**
 * The wait an ignored Retry-After asked for: "48 h", or "more than a year" past one, where the
 * number says nothing more (309 digits or more are kept as 1.8e305 s, which read "4.99e+301 h").
 */
const ignoredAsked = (askedSeconds: number): string =>
  pastAYear(askedSeconds) ? "more than a year" : seconds(askedSeconds);

/**
 * Why hookline did not follow the receiver's Retry-After, in the same words: someone whose
 * endpoint asked for 48 h and saw the next attempt 30 s later had nothing saying why.
 */
export function ignoredWords(ignored: IgnoredRetryAfter): string {
  if (ignored.reason === "too-long") {
    return (
      `The endpoint asked for ${ignoredAsked(ignored.askedSeconds)} before the next attempt; hookline ` +
      `ignores a wait over ${seconds(24 * 3600)}, so the retry schedule set the next attempt.`
    );
  }
  return (
    `The endpoint's Retry-After was "${ignored.value}", neither a number of seconds nor a date, ` +
    "so hookline ignored it and the retry schedule set the next attempt."
  );
}

/**
 * The mark an attempt's line in a list ends with where its answer's Retry-After set the next
 * attempt's time (" · Retry-After 2 min", " · Retry-After 6 h, capped at 4 h", " · Retry-After
 * 0 (no wait)"), or was ignored (" · Retry-After 48 h ignored (over 24 h)", " · Retry-After
 * ignored (over 24 h)" past a year, " · Retry-After ignored (not a number or date)"); empty
 * otherwise. Unfolded, the attempt says more ({@link askedWaitWords}, {@link ignoredWords}), but
 * someone scanning a list for why a retry came late, or early, had to unfold every attempt to
 * find it.
 */
export function retryAfterMark(a: {
  retryAfter?: AskedWait | null;
  retryAfterIgnored?: IgnoredRetryAfter | null;
}): string {
  const ignored = a.retryAfterIgnored;
  if (ignored) {
    if (ignored.reason === "malformed") return " · Retry-After ignored (not a number or date)";
    const over = `ignored (over ${seconds(24 * 3600)})`;
    return pastAYear(ignored.askedSeconds)
      ? ` · Retry-After ${over}`
      : ` · Retry-After ${seconds(ignored.askedSeconds)} ${over}`;
  }
  const ra = a.retryAfter;
  if (!ra) return "";
  switch (waitKind(ra)) {
    case "none":
      return " · Retry-After 0 (no wait)";
    case "asked":
      return ` · Retry-After ${seconds(ra.askedSeconds)}`;
    case "capped":
      return ` · Retry-After ${seconds(ra.askedSeconds)}, capped at ${seconds(ra.waitSeconds)}`;
  }
}

/**
 * Why the next attempt is when it is, after "next attempt in 2 min", where the receiver's
 * Retry-After set it: a customer saw a retry 2 min off, not the ladder's 5 s, with nothing to
 * explain the gap.
 */
export function nextAttemptAskedFor(ra: AskedWait): string {
  switch (waitKind(ra)) {
    case "none":
      return ", as the endpoint asked for no wait (Retry-After)";
    case "asked":
      return `, the wait the endpoint asked for (${seconds(ra.askedSeconds)}, in its Retry-After)`;
    case "capped":
      return (
        `: the endpoint asked for ${seconds(ra.askedSeconds)} (Retry-After); hookline waits at ` +
        `most ${seconds(ra.waitSeconds)}`
      );
  }
}
