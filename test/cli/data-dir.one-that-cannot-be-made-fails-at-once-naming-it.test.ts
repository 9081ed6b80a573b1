/**
 * A data dir that cannot be made or used stops each command that takes one at once, exit 1, with
 * one line naming HOOKLINE_DATA_DIR, the path and why. Under /proc (where a typo or a copied
 * example may put it), `hookline serve` hung instead, at full CPU and deaf to SIGTERM: Node's
 * recursive mkdir takes the ENOENT such a file system answers for a missing parent, makes that
 * parent (there already) and tries again, for ever. With DATABASE_URL the data dir holds only the
 * admin token, made there all the same. `store copy` said of a data dir below a file, or one it
 * may not look into, that it held no store, where the other commands say the path cannot be used.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { spawnCli } from "../support/built-cli.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";

const cleanup = useCleanup();

/** `hookline <args>` with `env`, to its end; killed after the test if it hangs instead. */
async function runToTheEnd(args: string[], env: Record<string, string>) {
  // Refused before the store is opened: a schema made all the same is dropped.
  if (env.HOOKLINE_PG_SCHEMA) cleanup.push(() => dropSchema(env.HOOKLINE_PG_SCHEMA!));
  const run = spawnCli(args, { HOOKLINE_PORT: "0", HOOKLINE_SENDER_THREADS: "0", ...env });
  cleanup.push(async () => {
    run.child.kill("SIGKILL");
    await run.exited;
  });
  const code = await run.exited;
  return { code, out: run.out(), err: run.err() };
}

/** Each command that takes a data dir, with what else it needs to get that far. */
const COMMANDS: Record<string, { args: string[]; env: Record<string, string> }> = {
  serve: { args: ["serve"], env: {} },
  "serve on PostgreSQL (the admin token is kept in the data dir)": {
    args: ["serve"],
    env: { DATABASE_URL: TEST_DATABASE_URL, HOOKLINE_PG_SCHEMA: freshSchemaName() },
  },
  "keys rotate": { args: ["keys", "rotate"], env: {} },
  "store copy": { args: ["store", "copy", "--to", TEST_DATABASE_URL], env: {} },
};

describe("a data dir under /proc, which takes no new directories", () => {
  const missing = `/proc/hookline-${randomBytes(4).toString("hex")}`;
  const dataDir = join(missing, "data");

  for (const command of [
    "serve",
    "serve on PostgreSQL (the admin token is kept in the data dir)",
  ]) {
    it(`stops ${command} at once, naming the setting, the path and why`, async () => {
      const { args, env } = COMMANDS[command]!;
      const run = await runToTheEnd(args, { ...env, HOOKLINE_DATA_DIR: dataDir });
      expect(run.code, run.out + run.err).toBe(1);
      expect(run.err).toBe(
        `hookline: HOOKLINE_DATA_DIR ${dataDir} cannot be used: ${missing} cannot be made, as /proc takes no new directories\n`,
      );
    }, 30_000);
  }

  for (const command of ["keys rotate", "store copy"]) {
    it(`stops ${command} at once: there is no store there`, async () => {
      const { args, env } = COMMANDS[command]!;
      const run = await runToTheEnd(args, { ...env, HOOKLINE_DATA_DIR: dataDir });
      expect(run.code, run.out + run.err).toBe(1);
      expect(run.err).toBe(
        `hookline: HOOKLINE_DATA_DIR ${dataDir} holds no hookline store (no hookline.db)\n`,
      );
    }, 30_000);
  }
});

describe("a data dir below a file", () => {
  for (const [command, { args, env }] of Object.entries(COMMANDS)) {
    it(`stops ${command} at once, saying a part of the path is a file`, async () => {
      const file = join(tempDir(cleanup, "hookline-below-a-file-"), "file");
      writeFileSync(file, "");
      const dataDir = join(file, "data");
      const run = await runToTheEnd(args, { ...env, HOOKLINE_DATA_DIR: dataDir });
      expect(run.code, run.out + run.err).toBe(1);
      expect(run.err).toBe(
        `hookline: HOOKLINE_DATA_DIR ${dataDir} cannot be used: a part of the path is a file, not a directory\n`,
      );
    }, 30_000);
  }
});
