/**
 * `hookline keys rotate` run with a worker's environment in which DATABASE_URL was misspelt
 * (HOOKLINE_DATABASE_URL) is refused for HOOKLINE_ROLE=worker having no database. serve says
 * then which variable was misspelt; keys rotate stopped at the refusal alone, before it had
 * worked out the unknown variables, leaving the operator to stare at a DATABASE_URL they set.
 */
import { PassThrough } from "node:stream";
import { expect, it } from "vitest";
import { keysCommand } from "../../src/cli/keys.js";
import { tempDir, useCleanup } from "../support/cleanup.js";

const cleanup = useCleanup();

it("warns of the misspelt setting when another setting's value is refused", async () => {
  const out = new PassThrough();
  let printed = "";
  out.on("data", (c: Buffer) => (printed += c.toString()));
  const env = {
    HOOKLINE_DATA_DIR: tempDir(cleanup, "hookline-keys-"),
    HOOKLINE_ROLE: "worker",
    HOOKLINE_DATABASE_URL: "postgres://127.0.0.1/hookline",
    HOOKLINE_RETENTION_DAYS: "7",
  };
  await expect(keysCommand(env, out).parseAsync(["rotate"], { from: "user" })).rejects.toThrow(
    /^HOOKLINE_ROLE \(--role\) worker needs DATABASE_URL/,
  );
  expect(printed).toBe(
    "WARNING: HOOKLINE_DATABASE_URL is not a hookline setting (did you mean DATABASE_URL?); it is ignored\n",
  );
});
