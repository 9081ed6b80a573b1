/**
 * `mkdir -p` that always ends. Node's recursive mkdir loops for ever, at full CPU and deaf to
 * signals, where a directory that is there refuses a new entry with ENOENT, as /proc does: it takes
 * the ENOENT for a missing parent, makes the parent (there already) and tries again. A data dir
 * under /proc hung `hookline serve` so.
 */
import { mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";

/** Makes one directory, its parent there: `fs.mkdirSync` without `recursive`. */
export type MakeOne = (path: string, options: { mode: number }) => unknown;

/**
 * Makes `dir` with `mode`, and each missing directory above it; throws Node's error for the first
 * one that cannot be made (a file on the way: EEXIST or ENOTDIR; a link to nothing: ENOENT).
 * `makeOne` is for tests, which act out other processes and file systems through it.
 */
export function makeDirectory(dir: string, mode: number, makeOne: MakeOne = mkdirSync): void {
  const path = resolve(dir);
  try {
    mkdirOnce(path, mode, makeOne);
  } catch (err) {
    const parent = dirname(path);
    if (codeOf(err) !== "ENOENT" || parent === path) throw err;
    // With its parent there, ENOENT may be the file system's answer rather than a missing parent,
    // or another process made the parent since (two hooklines starting on one new data dir): one
    // more try tells, and a second refusal is thrown.
    if (!isDirectory(parent)) makeDirectory(parent, mode, makeOne);
    mkdirOnce(path, mode, makeOne);
  }
}

/** Makes `path` alone; one there already will do if it is a directory. */
function mkdirOnce(path: string, mode: number, makeOne: MakeOne): void {
  try {
    makeOne(path, { mode });
  } catch (err) {
    // A link to nothing is there, but stat follows it and throws ENOENT: thrown as such.
    if (codeOf(err) !== "EEXIST" || !statSync(path).isDirectory()) throw err;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function codeOf(err: unknown): unknown {
  return (err as { code?: unknown } | null)?.code;
}
