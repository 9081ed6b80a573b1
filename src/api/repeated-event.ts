/**
 * A message posted with an `eventId` its application already used is answered with the message
 * that has it, and nothing new is written. That is right for a retry of the same post; a post
 * that says something else under the same `eventId` would be dropped behind a 200, and the Svix
 * client, which asks without content and fills in its own payload, would show the caller the
 * payload that was not taken. Such a post is refused instead (409), naming what differs.
 */
import { isDeepStrictEqual } from "node:util";
import type { Message } from "../domain/types.js";

export interface PostedContent {
  eventType: string;
  payload: Buffer;
  channels: string[] | null;
  tags: string[] | null;
}

/**
 * The fields in which `posted` says something other than `existing`, in the API's names. The
 * payload counts as the same when its JSON is (whitespace and key order aside, numbers by their
 * exact value); channels and tags as sets. `deliverAt` is left out: a caller retrying may well
 * compute it afresh.
 */
export function contentDifferences(existing: Message, posted: PostedContent): string[] {
  const differ: string[] = [];
  if (existing.eventType !== posted.eventType) differ.push("eventType");
  if (!samePayload(existing.payload, posted.payload)) differ.push("payload");
  if (!sameSet(existing.channels, posted.channels)) differ.push("channels");
  if (!sameSet(existing.tags, posted.tags)) differ.push("tags");
  return differ;
}

function samePayload(a: Buffer, b: Buffer): boolean {
  if (a.equals(b)) return true;
  try {
    const [x, y] = [a.toString("utf8"), b.toString("utf8")];
    // Payloads that differ as doubles differ exactly too; and where no number can lose digits
    // as a double, equal doubles are equal values. Only the rest pays for the exact reading,
    // which costs about ten times JSON.parse (half a second for a 1 MiB payload of numbers).
    if (!isDeepStrictEqual(JSON.parse(x), JSON.parse(y))) return false;
    if (!MAY_BE_INEXACT.test(x) && !MAY_BE_INEXACT.test(y)) return true;
    return isDeepStrictEqual(JSON.parse(numbersExact(x)), JSON.parse(numbersExact(y)));
  } catch {
    return false;
  }
}

/**
 * Text where a number may read as a double that another number shares: sixteen digits or more
 * (a dot among them: a false alarm only costs the exact reading), or an exponent, whose value
 * can leave a double's range (1e400 and 2e400 both read as Infinity). Strings match too, harmlessly.
 */
const MAY_BE_INEXACT = /[0-9.]{16}|\d[eE]/;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const ZERO = 0x30;
const NUMBER = /(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?/y;

/**
 * The JSON text with each number turned into a string of its exact value, and every string
 * marked apart from those. JSON.parse reads numbers as doubles: two payloads differing only past a
 * double's precision (ids above 2^53, 1e400 and 2e400) compared equal, and the second post was
 * answered 200 and dropped, though its payload would have reached the receiver as written.
 * Numbers of one value written differently (1, 1.0, 1e0) stay equal. A scan, not a regular
 * expression: one over a string of many escapes runs out of stack.
 */
function numbersExact(json: string): string {
  const out: string[] = [];
  let from = 0;
  let i = 0;
  while (i < json.length) {
    const c = json.charCodeAt(i);
    if (c === QUOTE) {
      // `"text"` becomes `"stext"`, keys too: no string can then read as a number's `"n…"`.
      out.push(json.slice(from, i + 1), "s");
      from = i + 1;
      i = stringEnd(json, i);
    } else if (c === MINUS || (c >= 0x30 && c <= 0x39)) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(json);
      if (!m) throw new SyntaxError(`not a number at ${i}`);
      out.push(json.slice(from, i), `"n${exactValue(m[1]!, m[2]!, m[3] ?? "", m[4] ?? "0")}"`);
      from = i = NUMBER.lastIndex;
    } else i++;
  }
  out.push(json.slice(from));
  return out.join("");
}

/** Just past the closing quote of the string whose opening quote is at `i`. */
function stringEnd(json: string, i: number): number {
  for (;;) {
    const q = json.indexOf('"', i + 1);
    if (q < 0) return json.length;
    let slashes = 0;
    while (json.charCodeAt(q - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q + 1;
    i = q;
  }
}

/**
 * `digits` e `power`, without leading or trailing zeros: one text per value (0 and -0 apart). The
 * zeros are counted by loops: a regular expression for trailing zeros retries from every zero of
 * a run, and one number of a few hundred thousand digits held the server for minutes.
 */
function exactValue(sign: string, whole: string, fraction: string, exponent: string): string {
  const digits = `${whole}${fraction}`;
  let first = 0;
  while (first < digits.length && digits.charCodeAt(first) === ZERO) first++;
  if (first === digits.length) return `${sign}0`;
  let end = digits.length;
  while (digits.charCodeAt(end - 1) === ZERO) end--;
  const power = BigInt(exponent) - BigInt(fraction.length) + BigInt(digits.length - end);
  return `${sign}${digits.slice(first, end)}e${power}`;
}

function sameSet(a: readonly string[] | null, b: readonly string[] | null): boolean {
  const x = new Set(a ?? []);
  const y = new Set(b ?? []);
  return x.size === y.size && [...x].every((v) => y.has(v));
}
