/**
 * Two hooklines starting at once on one new data dir (replicas sharing a volume, api and worker
 * side by side) both make its missing directories. One that found the parent missing, and then
 * saw it there (the other had just made it), took the refusal for a file system that takes no new
 * directories, as /proc is, and stopped start-up saying so. It now tries once more, as Node's
 * recursive mkdir did, and only a second refusal stops it.
 */
import type * as Fs from "node:fs";
import { statSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect, it, vi } from "vitest";
import { makeDirectory } from "../src/make-directory.js";
import { tempDir, useCleanup } from "./support/cleanup.js";

/**
 * `makes`: the parent another process makes, right after this one's mkdir below it was refused.
 * `refuses`: a directory that refuses every new entry with ENOENT, as /proc does; `tries` counts.
 */
const other = vi.hoisted(() => ({
  makes: null as string | null,
  refuses: null as string | null,
  tries: 0,
}));

vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof Fs>();
  const mkdir = ((path: string, options?: { mode?: number }) => {
    if (dirname(String(path)) === other.refuses) {
      other.tries++;
      throw Object.assign(new Error(`ENOENT: no such file or directory, mkdir '${path}'`), {
        code: "ENOENT",
        syscall: "mkdir",
        path,
      });
    }
    try {
      return fs.mkdirSync(path, options);
    } catch (err) {
      const parent = other.makes;
      if ((err as { code?: string }).code === "ENOENT" && dirname(String(path)) === parent) {
        other.makes = null;
        fs.mkdirSync(parent, { mode: 0o700 });
      }
      throw err;
    }
  }) as typeof fs.mkdirSync;
  return { ...fs, mkdirSync: mkdir, default: { ...fs, mkdirSync: mkdir } };
});

const cleanup = useCleanup();

it("a parent made by another process meanwhile is used, and the data dir made", () => {
  const root = tempDir(cleanup, "hookline-make-directory-");
  const dataDir = join(root, "volume", "data");
  other.makes = join(root, "volume");

  makeDirectory(dataDir, 0o700);

  expect(other.makes).toBeNull();
  expect(statSync(dataDir).isDirectory()).toBe(true);
  expect(statSync(dataDir).mode & 0o777).toBe(0o700);
});

it("a directory that refuses new entries with ENOENT still stops it at once", () => {
  const root = tempDir(cleanup, "hookline-make-directory-");
  other.refuses = root;
  other.tries = 0;
  try {
    expect(() => makeDirectory(join(root, "data"), 0o700)).toThrow(
      expect.objectContaining({ code: "ENOENT", path: join(root, "data") }),
    );
    expect(other.tries).toBeLessThanOrEqual(2);
  } finally {
    other.refuses = null;
  }
});
