/**
 * The hookline a test starts is the one operators run: `hookline serve`, no `--role` unless the
 * test asks for one. Before, spawnHookline always added `--role all`.
 */
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { runHookline } from "../support/process.js";

const cleanup = useCleanup();

it("starts plain `hookline serve`, as operators run it", async () => {
  const served = await runHookline(cleanup, tempDir(cleanup, "hookline-as-run-"));
  const argv = readFileSync(`/proc/${served.child.pid}/cmdline`, "utf8").split("\0");
  // The node binary, bin/hookline.js, then what an operator types after `hookline`.
  expect(argv.slice(2).filter(Boolean)).toEqual(["serve"]);
});
