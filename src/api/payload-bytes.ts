/**
 * The caller's own bytes of a top-level member of a JSON body. A payload is delivered and signed
 * exactly as the caller wrote it: parsing and re-stringifying it would round integers above 2^53,
 * turn 1e400 into null and -0 into 0, and move integer-like keys first.
 */
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/**
 * The bytes of the value of the top-level member `name` of `raw`, a body already known to be
 * valid JSON; the last one when the name repeats (as JSON.parse resolves it). Undefined when the
 * body is not an object or has no such member. One pass over the bytes; the value is copied.
 */
export function memberBytes(raw: Buffer, name: string): Buffer | undefined {
  let i = skipSpace(raw, skipBom(raw));
  if (raw[i] !== OPEN_OBJECT) return undefined;
  i = skipSpace(raw, i + 1);
  let found: [number, number] | undefined;
  while (i < raw.length && raw[i] === QUOTE) {
    const keyEnd = stringEnd(raw, i);
    const matches = keyIs(raw, i, keyEnd, name);
    i = skipSpace(raw, keyEnd);
    if (raw[i] !== COLON) return undefined;
    const start = skipSpace(raw, i + 1);
    const end = valueEnd(raw, start);
    if (matches) found = [start, end];
    i = skipSpace(raw, end);
    if (raw[i] !== COMMA) break;
    i = skipSpace(raw, i + 1);
  }
  if (!found) return undefined;
  // Copied: the body's buffer is not kept. A body that is not UTF-8 was refused (boundary.ts).
  return Buffer.from(raw.subarray(found[0], found[1]));
}

function skipBom(raw: Buffer): number {
  return raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf ? 3 : 0;
}

function skipSpace(raw: Buffer, i: number): number {
  for (;;) {
    const b = raw[i];
    if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) return i;
    i++;
  }
}

/** Just past the closing quote of the string whose opening quote is at `i`. */
function stringEnd(raw: Buffer, i: number): number {
  for (;;) {
    const q = raw.indexOf(QUOTE, i + 1);
    if (q < 0) return raw.length;
    // The quote is escaped when an odd number of backslashes precede it.
    let slashes = 0;
    while (raw[q - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q + 1;
    i = q;
  }
}

/** Just past the value starting at `i`. */
function valueEnd(raw: Buffer, i: number): number {
  const first = raw[i];
  if (first === QUOTE) return stringEnd(raw, i);
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    // A number, true, false or null: runs to the next delimiter.
    while (i < raw.length) {
      const b = raw[i]!;
      if (b === COMMA || b === CLOSE_OBJECT || b === CLOSE_ARRAY || b <= 0x20) break;
      i++;
    }
    return i;
  }
  let depth = 0;
  while (i < raw.length) {
    const b = raw[i]!;
    if (b === QUOTE) {
      i = stringEnd(raw, i);
      continue;
    }
    if (b === OPEN_OBJECT || b === OPEN_ARRAY) depth++;
    else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return i;
}

/** Whether the key string spanning [start, end) (quotes included) decodes to `name`. */
function keyIs(raw: Buffer, start: number, end: number, name: string): boolean {
  const inner = raw.subarray(start + 1, end - 1);
  // A key with escapes (e.g. "pay\u006coad") is rare: decode it as JSON.parse would.
  if (inner.includes(BACKSLASH)) return JSON.parse(raw.toString("utf8", start, end)) === name;
  return inner.length === Buffer.byteLength(name) && inner.toString("utf8") === name;
}
