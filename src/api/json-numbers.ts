/**
 * Numbers in JSON text read by their exact value, where JSON.parse reads them as doubles: what
 * compares a repeated message's payload with the first (repeated-event.ts), and what finds the
 * numbers of JSON hookline keeps parsed (an event type's `schemas`) that it would not keep as sent.
 */
import type { FieldProblem } from "../errors.js";

/**
 * Text where a number may read as a double that another number shares: sixteen digits or more
 * (a dot among them: a false alarm only costs the exact reading), or an exponent, whose value
 * can leave a double's range (1e400 and 2e400 both read as Infinity). Strings match too, harmlessly.
 */
export const MAY_BE_INEXACT = /[0-9.]{16}|\d[eE]/;

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
 * Numbers of one value written differently (1, 1.0, 1e0) stay equal. With `withText`, each
 * number's string also holds the number as written, after a space. A scan, not a regular
 * expression: one over a string of many escapes runs out of stack.
 */
export function numbersExact(json: string, withText = false): string {
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
      const exact = exactValue(m[1]!, m[2]!, m[3] ?? "", m[4] ?? "0");
      out.push(json.slice(from, i), withText ? `"n${exact} ${m[0]}"` : `"n${exact}"`);
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

/** A number of the exact reading ("n…", with its text after a space or not) as its value alone. */
function valueOf(leaf: string): string {
  const space = leaf.indexOf(" ");
  const value = space < 0 ? leaf : leaf.slice(0, space);
  // -0 is kept as 0, which is the same number to anything that compares it.
  return value === "n-0" ? "n0" : value;
}

/**
 * Where `parsed`, read by JSON.parse from the JSON text `sent`, holds a number that writing it
 * out again would change: one past a double's range (1e400, kept as null) or with more digits
 * than a double holds (12345678901234567890123, kept as 1.2345678901234568e+22). Each is named at
 * its place under `base`, with what it would become. Text with no such number is not read again.
 */
export function numbersNotKept(
  sent: string,
  parsed: unknown,
  base: FieldProblem["loc"],
): FieldProblem[] {
  if (!MAY_BE_INEXACT.test(sent)) return [];
  const asSent: unknown = JSON.parse(numbersExact(sent, true));
  const asKept: unknown = JSON.parse(numbersExact(JSON.stringify(parsed)));
  const problems: FieldProblem[] = [];
  // JSON hookline keeps parsed nests at most MAX_JSON_DEPTH levels (validation.ts): a stack of
  // that many is no risk, but the walk needs none.
  const stack: [unknown, unknown, unknown, FieldProblem["loc"]][] = [
    [asSent, asKept, parsed, base],
  ];
  while (stack.length > 0 && problems.length < 20) {
    const [a, b, value, loc] = stack.pop()!;
    if (typeof a === "string" && a.startsWith("n")) {
      if (typeof b !== "string" || valueOf(a) !== valueOf(b)) {
        const text = a.slice(a.indexOf(" ") + 1);
        problems.push({
          loc,
          msg: `is ${text}, which hookline would keep as ${JSON.stringify(value)}: a number is kept as a double (at most 17 significant digits, within ±1.8e308); send one a double holds, or a string`,
          type: "value_error",
        });
      }
    } else if (typeof a === "object" && a !== null && typeof b === "object" && b !== null) {
      const [x, y, v] = [
        a as Record<string, unknown>,
        b as Record<string, unknown>,
        value as Record<string, unknown>,
      ];
      // The exact reading marks keys as strings are ("s" first); an array's are its indexes.
      for (const key of Object.keys(x)) {
        const at = Array.isArray(x) ? Number(key) : key.slice(1);
        stack.push([x[key], y[key], v[at], [...loc, at]]);
      }
    }
  }
  return problems;
}
