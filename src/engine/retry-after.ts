import type { RetryAfterDecision } from "./ladder.js";

/** A Retry-After up to and including this is honoured exactly (4 h). */
export const RETRY_AFTER_HONOUR_MAX_MS = 4 * 60 * 60 * 1000;
/** A longer Retry-After, up to RETRY_AFTER_IGNORE_ABOVE_MS, is shortened to this (4 h). */
export const RETRY_AFTER_CAP_MS = RETRY_AFTER_HONOUR_MAX_MS;
/** A Retry-After longer than this (24 h) is ignored and the ladder stays in force. */
export const RETRY_AFTER_IGNORE_ABOVE_MS = 24 * 60 * 60 * 1000;
/** The most characters of a malformed Retry-After an attempt keeps (then "…"). */
export const IGNORED_RETRY_AFTER_VALUE_MAX = 64;

// Boundaries, chosen so that "capped" always means the delay really changed:
//   delay <= 4 h          -> honoured
//   4 h < delay <= 24 h   -> capped at 4 h
//   delay > 24 h          -> ignored ("too-long"): such a value is more likely a bug or an
//                            attempt to park our queue than a real maintenance window.

const DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
const LONG_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const TIME = "(\\d{2}):(\\d{2}):(\\d{2})";
const MON = `(${MONTHS.join("|")})`;

// RFC 9110 §5.6.7: senders use IMF-fixdate, but recipients must also accept the two
// obsolete forms. Date.parse is not used because it accepts far too much ("2" is a date to V8).
const IMF_FIXDATE = new RegExp(`^(?:${DAYS.join("|")}), (\\d{2}) ${MON} (\\d{4}) ${TIME} GMT$`);
const RFC850 = new RegExp(`^(?:${LONG_DAYS.join("|")}), (\\d{2})-${MON}-(\\d{2}) ${TIME} GMT$`);
const ASCTIME = new RegExp(`^(?:${DAYS.join("|")}) ${MON} ([ \\d]\\d) ${TIME} (\\d{4})$`);

function utc(
  year: number,
  month: string,
  day: number,
  h: number,
  m: number,
  s: number,
): number | null {
  const monthIndex = MONTHS.indexOf(month);
  const ms = Date.UTC(year, monthIndex, day, h, m, s);
  const d = new Date(ms);
  // Date.UTC rolls 31 Feb over into March; a round trip catches impossible dates.
  const valid =
    d.getUTCFullYear() === year &&
    d.getUTCMonth() === monthIndex &&
    d.getUTCDate() === day &&
    h < 24 &&
    m < 60 &&
    s < 61;
  return valid ? ms : null;
}

/** Parses an HTTP-date in any of the three forms RFC 9110 names; null if it is not one. */
export function parseHttpDate(value: string, now: number): number | null {
  let match = IMF_FIXDATE.exec(value);
  if (match) {
    const [, day, mon, year, h, m, s] = match;
    return utc(Number(year), mon ?? "", Number(day), Number(h), Number(m), Number(s));
  }
  match = RFC850.exec(value);
  if (match) {
    const [, day, mon, yy, h, m, s] = match;
    // Two-digit years: a date more than 50 years ahead means the same digits last century.
    const currentYear = new Date(now).getUTCFullYear();
    let year = Math.floor(currentYear / 100) * 100 + Number(yy);
    if (year > currentYear + 50) year -= 100;
    return utc(year, mon ?? "", Number(day), Number(h), Number(m), Number(s));
  }
  match = ASCTIME.exec(value);
  if (match) {
    const [, mon, day, h, m, s, year] = match;
    return utc(Number(year), mon ?? "", Number(day?.trim()), Number(h), Number(m), Number(s));
  }
  return null;
}

/** Reads a Retry-After header (delta-seconds or HTTP-date) into a decision; null when absent or empty. */
export function decideRetryAfter(
  header: string | null | undefined,
  now: number,
): RetryAfterDecision | null {
  if (header === null || header === undefined) return null;
  const value = header.trim();
  if (value === "") return null;
  let requestedMs: number;
  if (/^\d+$/.test(value)) {
    // Past 308 digits Number() says Infinity, which no JSON answer can carry.
    requestedMs = Math.min(Number(value) * 1000, Number.MAX_VALUE);
  } else {
    const at = parseHttpDate(value, now);
    if (at === null) return { kind: "ignored", reason: "malformed", value: keptValue(value) };
    // A date in the past means "now"; the clocks merely disagree.
    requestedMs = Math.max(0, at - now);
  }
  if (requestedMs <= RETRY_AFTER_HONOUR_MAX_MS) return { kind: "honoured", delayMs: requestedMs };
  if (requestedMs <= RETRY_AFTER_IGNORE_ABOVE_MS) {
    return { kind: "capped", delayMs: RETRY_AFTER_CAP_MS, requestedMs };
  }
  return { kind: "ignored", reason: "too-long", requestedMs };
}

/**
 * The characters a kept value has replaced: C0 and C1 controls (PostgreSQL's text refuses NUL),
 * and Unicode's direction controls (embeddings, overrides, isolates, marks), which, shown inside
 * hookline's sentence on the dashboard, would reorder the rest of it. Node reads a header as
 * Latin-1, whose C1 range catches the UTF-8 of these already; a value read otherwise would not.
 */
const NOT_KEPT = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * A malformed value as an attempt keeps it: cut to {@link IGNORED_RETRY_AFTER_VALUE_MAX}
 * characters (then "…"), controls replaced ({@link NOT_KEPT}), as a dashboard line has no room
 * for a receiver's whole body of mistakes.
 */
function keptValue(value: string): string {
  const cut =
    value.length > IGNORED_RETRY_AFTER_VALUE_MAX
      ? `${value.slice(0, IGNORED_RETRY_AFTER_VALUE_MAX)}…`
      : value;
  return cut.replace(NOT_KEPT, "\ufffd");
}

/**
 * When a receiver may be asked again after an answer whose Retry-After was decided as `ra`, as a
 * retry would be: `now` plus the wait, honoured or capped; null without one, or when it is ignored.
 */
export function retryAfterAt(ra: RetryAfterDecision | null, now: number): number | null {
  return ra && ra.kind !== "ignored" ? now + ra.delayMs : null;
}

/** Where the next request goes after a wait, and whether the receiver's Retry-After put it there. */
export interface NextRequest {
  at: number;
  asked: boolean;
}

/**
 * The later of the end of hookline's own wait and the time the receiver's Retry-After asked for
 * (`asked`, from {@link retryAfterAt}; null without one). Used wherever a wait is kept that a
 * Retry-After may only lengthen (the circuit breaker's probes); on a tie the wait wins, so
 * `asked` is true only when the Retry-After moved the request.
 */
export function laterOfWaitAndRetryAfter(waitEndsAt: number, asked: number | null): NextRequest {
  return asked !== null && asked > waitEndsAt
    ? { at: asked, asked: true }
    : { at: waitEndsAt, asked: false };
}
