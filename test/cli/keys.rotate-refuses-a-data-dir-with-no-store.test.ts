/**
 * `hookline keys rotate` opens the store named by HOOKLINE_DATA_DIR (default ./data, from the
 * directory it is run in). Run from another directory, or with a typo, it must not make a new,
 * empty store there and report "done: the old keys may now be removed": the real store still
 * needs those keys, and removing them leaves its secrets and payloads unreadable.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { expect, it } from "vitest";
import { keysCommand } from "../../src/cli/keys.js";
import { tempDir, useCleanup } from "../support/cleanup.js";

const cleanup = useCleanup();

function rotate(env: Record<string, string>, out = new PassThrough()): Promise<unknown> {
  return keysCommand(env, out).parseAsync(["rotate"], { from: "user" });
}

it("refuses a data dir that does not exist, creating nothing", async () => {
  const missing = join(tempDir(cleanup, "hookline-keys-"), "dat");
  const out = new PassThrough().setEncoding("utf8");
  await expect(rotate({ HOOKLINE_DATA_DIR: missing }, out)).rejects.toThrow(
    `HOOKLINE_DATA_DIR ${missing} holds no hookline store`,
  );
  expect(existsSync(missing)).toBe(false);
  expect(out.read()).toBeNull();
});

it("refuses an empty data dir, leaving it empty", async () => {
  const dir = tempDir(cleanup, "hookline-keys-");
  await expect(rotate({ HOOKLINE_DATA_DIR: dir })).rejects.toThrow(
    `HOOKLINE_DATA_DIR ${dir} holds no hookline store`,
  );
  expect(readdirSync(dir)).toEqual([]);
});
