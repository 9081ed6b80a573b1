/**
 * Just enough of source maps to turn a line of hookline's dist/*.js into the line of its src/*.ts
 * (tsc's `sourceMap: true` output), for the profile summary.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const cache = new Map<string, ((line: number) => { source: string; line: number } | null) | null>();

function decodeVlq(segment: string): number[] {
  const out: number[] = [];
  let value = 0;
  let shift = 0;
  for (const ch of segment) {
    const digit = B64.indexOf(ch);
    value += (digit & 31) << shift;
    if (digit & 32) shift += 5;
    else {
      out.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return out;
}

/** A lookup from a 0-based generated line to the original file and 1-based line, if mapped. */
function load(jsFile: string) {
  const mapFile = `${jsFile}.map`;
  if (!existsSync(mapFile)) return null;
  const map = JSON.parse(readFileSync(mapFile, "utf8")) as { sources: string[]; mappings: string };
  const lines = map.mappings.split(";");
  const first: ({ source: number; line: number } | null)[] = [];
  let source = 0;
  let origLine = 0;
  for (const line of lines) {
    let found: { source: number; line: number } | null = null;
    for (const seg of line.split(",")) {
      if (!seg) continue;
      const v = decodeVlq(seg);
      if (v.length >= 4) {
        source += v[1]!;
        origLine += v[2]!;
        found ??= { source, line: origLine };
      }
    }
    first.push(found);
  }
  return (line: number) => {
    for (let l = line; l >= 0 && l > line - 5; l--) {
      const hit = first[l];
      if (hit)
        return { source: resolve(dirname(jsFile), map.sources[hit.source]!), line: hit.line + 1 };
    }
    return null;
  };
}

/** The src location of a 0-based line of a built file, or null when it has no source map. */
export function originalPosition(
  jsFile: string,
  line: number,
): { source: string; line: number } | null {
  if (!cache.has(jsFile)) cache.set(jsFile, load(jsFile));
  return cache.get(jsFile)?.(line) ?? null;
}
