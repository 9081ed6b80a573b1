/**
 * The hookline a test starts is the one operators run: `hookline serve`, no `--role` unless the
 * test asks for one, and with only the settings the test gives. A HOOKLINE_* variable or a
 * DATABASE_URL set in the shell the tests run from (a CI job's, an operator's) must not reach it,
 * whether the test starts it through spawnCli or on its own terms with cliEnv: before, tests that
 * spawned hookline themselves passed the whole shell on, and a DATABASE_URL there moved them onto
 * that database; and spawnHookline always added `--role all`.
 */
import { readFileSync } from "node:fs";
import { afterEach, expect, it } from "vitest";
import { cliEnv } from "../support/built-cli.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { runHookline } from "../support/process.js";

const cleanup = useCleanup();
const saved = { ...process.env };

afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
});

it("starts plain `hookline serve`, as operators run it", async () => {
  const served = await runHookline(cleanup, tempDir(cleanup, "hookline-as-run-"));
  const argv = readFileSync(`/proc/${served.child.pid}/cmdline`, "utf8").split("\0");
  // The node binary, bin/hookline.js, then what an operator types after `hookline`.
  expect(argv.slice(2).filter(Boolean)).toEqual(["serve"]);
});

it("gives a child it starts none of the shell's hookline settings, and the test's own", () => {
  process.env.DATABASE_URL = "postgres://127.0.0.1:1/the-shells";
  process.env.HOOKLINE_LOG_LEVEL = "debug";
  process.env.HOOKLINE_ADMIN_TOKEN = "hl_the_shells_token_0123456789";
  const env = cliEnv({ HOOKLINE_PORT: "0", HOOKLINE_LOG_LEVEL: "warn" });
  expect(env.DATABASE_URL).toBeUndefined();
  expect(env.HOOKLINE_ADMIN_TOKEN).toBeUndefined();
  expect(env.HOOKLINE_LOG_LEVEL).toBe("warn");
  expect(env.HOOKLINE_PORT).toBe("0");
  // What it needs to run is still there.
  expect(env.PATH).toBe(process.env.PATH);
});
