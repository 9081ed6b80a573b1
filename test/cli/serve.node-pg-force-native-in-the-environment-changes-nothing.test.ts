/**
 * The PostgreSQL driver (node-postgres) swaps its JavaScript client for its native one, which
 * needs the pg-native package hookline does not ship, as soon as NODE_PG_FORCE_NATIVE is set at
 * all (even to 0). Every hookline command, SQLite ones and `--help` too, used to die at start with
 * a stack trace about a missing pg-native module. hookline runs on the JavaScript client whatever
 * that variable says: the built CLI, as operators run it, starts with it set.
 */
import { expect, it } from "vitest";
import { runCli } from "../support/built-cli.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { aSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { runHookline } from "../support/process.js";

const cleanup = useCleanup();

it("serve starts on PostgreSQL with NODE_PG_FORCE_NATIVE=1", async () => {
  const served = await runHookline(cleanup, tempDir(cleanup, "hookline-pgenv-"), {
    NODE_PG_FORCE_NATIVE: "1",
    DATABASE_URL: TEST_DATABASE_URL,
    HOOKLINE_PG_SCHEMA: aSchemaName(cleanup),
    HOOKLINE_SENDER_THREADS: "0",
  });
  const health = await fetch(`${served.url}/api/v1/health/ready`);
  expect(health.status).toBe(200);
}, 60_000);

it("serve starts on SQLite with NODE_PG_FORCE_NATIVE=0", async () => {
  const served = await runHookline(cleanup, tempDir(cleanup, "hookline-pgenv-"), {
    NODE_PG_FORCE_NATIVE: "0",
    HOOKLINE_SENDER_THREADS: "0",
  });
  expect(served.err()).toBe("");
}, 60_000);

it("--help answers with NODE_PG_FORCE_NATIVE set", async () => {
  const { code, out, err } = await runCli(["--help"], { NODE_PG_FORCE_NATIVE: "1" });
  expect(err).toBe("");
  expect(code).toBe(0);
  expect(out).toContain("serve");
}, 60_000);
