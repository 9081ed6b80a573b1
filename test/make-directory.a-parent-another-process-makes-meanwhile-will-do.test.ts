/**
 * Two hooklines starting at once on one new data dir (replicas sharing a volume, api and worker
 * side by side) both make its missing directories. One that found the parent missing, and then
 * saw it there (the other had just made it), took the refusal for a file system that takes no new
 * directories, as /proc is, and stopped start-up saying so. It now tries once more, as Node's
 * recursive mkdir did, and only a second refusal stops it.
 */
import { mkdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect, it } from "vitest";
import { makeDirectory, type MakeOne } from "../src/make-directory.js";
import { tempDir, useCleanup } from "./support/cleanup.js";

/**
 * Makes directories as the file system would, but with another process that makes `parent` right
 * after this one's mkdir below it was refused.
 */
function anotherProcessMakes(parent: string): { makeOne: MakeOne; made: () => boolean } {
  let pending = true;
  const makeOne: MakeOne = (path, options) => {
    try {
      return mkdirSync(path, options);
    } catch (err) {
      if (pending && (err as { code?: string }).code === "ENOENT" && dirname(path) === parent) {
        pending = false;
        mkdirSync(parent, { mode: 0o700 });
      }
      throw err;
    }
  };
  return { makeOne, made: () => !pending };
}

/** A file system where `dir` refuses every new entry with ENOENT, as /proc does. */
function refusingUnder(dir: string): { makeOne: MakeOne; tries: () => number } {
  let tries = 0;
  const makeOne: MakeOne = (path, options) => {
    if (dirname(path) !== dir) return mkdirSync(path, options);
    tries++;
    throw Object.assign(new Error(`ENOENT: no such file or directory, mkdir '${path}'`), {
      code: "ENOENT",
      syscall: "mkdir",
      path,
    });
  };
  return { makeOne, tries: () => tries };
}

const cleanup = useCleanup();

it("a parent made by another process meanwhile is used, and the data dir made", () => {
  const root = tempDir(cleanup, "hookline-make-directory-");
  const dataDir = join(root, "volume", "data");
  const other = anotherProcessMakes(join(root, "volume"));

  makeDirectory(dataDir, 0o700, other.makeOne);

  expect(other.made()).toBe(true);
  expect(statSync(dataDir).isDirectory()).toBe(true);
  expect(statSync(dataDir).mode & 0o777).toBe(0o700);
});

it("a directory that refuses new entries with ENOENT still stops it at once", () => {
  const root = tempDir(cleanup, "hookline-make-directory-");
  const fs = refusingUnder(root);
  expect(() => makeDirectory(join(root, "data"), 0o700, fs.makeOne)).toThrow(
    expect.objectContaining({ code: "ENOENT", path: join(root, "data") }),
  );
  expect(fs.tries()).toBeLessThanOrEqual(2);
});
