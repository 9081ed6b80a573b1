/**
 * Times a caller names as the edges of a window, to whatever precision they were written in.
 * hookline keeps times to the millisecond, and clients send finer ones (Python's `isoformat()`
 * writes microseconds); cutting them to the millisecond moved an edge, so a `before` of
 * `.123456` left out what was made at `.123`. Each edge is rounded instead to the whole
 * millisecond that keeps exactly what the caller's window holds, which way depending on whether
 * the store keeps or leaves out the edge's own instant; and whether a window is the wrong way
 * round is judged on the times as named. A time that says "not before" (a message's `deliverAt`, a
 * bulk replay's `startAt`) is rounded up alike, or it would come up to a millisecond early.
 */

/** A time as the caller wrote it: the millisecond it falls in, and whatever finer it said. */
export interface NamedTime {
  /** The whole millisecond it falls in, since the epoch. */
  readonly ms: number;
  /** Its digits past the millisecond, without trailing zeros: "" for a whole millisecond. */
  readonly finer: string;
}

const FRACTION = /\.(\d+)/;

/** The time an ISO-8601 date-time names (one already found valid: with seconds and a zone). */
export function namedTime(iso: string): NamedTime {
  const fraction = FRACTION.exec(iso);
  if (!fraction) return { ms: Date.parse(iso), finer: "" };
  const digits = fraction[1]!;
  // Date.parse is given three digits: what it does with more is no standard's. An offset is
  // whole minutes, so the digits past the millisecond are the same at any offset.
  const ms = Date.parse(iso.replace(fraction[0], `.${digits.slice(0, 3).padEnd(3, "0")}`));
  return { ms, finer: digits.slice(3).replace(/0+$/, "") };
}

/**
 * Whether `v` was read as a time. A window's check runs even when one of its edges was refused on
 * its own, and then finds the text sent there instead.
 */
export const isNamedTime = (v: unknown): v is NamedTime =>
  typeof v === "object" && v !== null && "finer" in v;

/** Whether `a` is later than `b`, to the last digit either was named with. */
export function isLater(a: NamedTime, b: NamedTime): boolean {
  if (a.ms !== b.ms) return a.ms > b.ms;
  const n = Math.max(a.finer.length, b.finer.length);
  return a.finer.padEnd(n, "0") > b.finer.padEnd(n, "0");
}

/** The first whole millisecond at or after `t`. */
export const msAtOrAfter = (t: NamedTime): number => (t.finer === "" ? t.ms : t.ms + 1);

/**
 * The first whole millisecond at or after the time an ISO-8601 date-time names (one already found
 * valid): when a "not before" time may be kept. Every message with a `deliverAt` passes here, and
 * nearly all name whole milliseconds: only one with a fourth digit past its seconds is read
 * digit by digit.
 */
export function msNotBefore(iso: string): number {
  const dot = iso.indexOf(".");
  const fourth = dot < 0 ? -1 : iso.charCodeAt(dot + 4);
  // Past the end charCodeAt gives NaN, which no comparison holds for: read as "no fourth digit".
  if (!(fourth >= 48 && fourth <= 57)) return Date.parse(iso);
  return msAtOrAfter(namedTime(iso));
}

/**
 * A list's `after` and `before`, both left out (the store keeps `> after` and `< before`), in
 * whole milliseconds: the millisecond `after` falls in (every later one is after it), and the
 * first at or after `before` (every earlier one is before it).
 */
export function msBetween(q: { after?: NamedTime; before?: NamedTime }): {
  after?: number;
  before?: number;
} {
  return {
    ...(q.after ? { after: q.after.ms } : {}),
    ...(q.before ? { before: msAtOrAfter(q.before) } : {}),
  };
}

/**
 * A window's `since`, kept, and `until`, left out (the store keeps `>= since` and `< until`), in
 * whole milliseconds: both the first at or after the time named.
 */
export function msSinceUntil(q: { since?: NamedTime | null; until?: NamedTime | null }): {
  since?: number;
  until?: number;
} {
  return {
    ...(q.since ? { since: msAtOrAfter(q.since) } : {}),
    ...(q.until ? { until: msAtOrAfter(q.until) } : {}),
  };
}
