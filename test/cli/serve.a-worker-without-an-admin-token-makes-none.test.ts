/**
 * A `--role worker` serves no API, and its banner shows no token: started without
 * HOOKLINE_ADMIN_TOKEN it makes no admin token at all. It used to write one to its data dir and
 * register it in the shared database, an admin credential nobody was shown. Its /metrics takes
 * the admin tokens the database already has.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { adminQuery, dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { runHookline, TEST_TOKEN } from "../support/process.js";

describe("a worker started without HOOKLINE_ADMIN_TOKEN", () => {
  const cleanup = useCleanup();

  it("writes no token to its data dir, registers none, and takes the database's", async () => {
    const dir = tempDir(cleanup, "hookline-worker-token-");
    const schema = freshSchemaName();
    cleanup.push(() => dropSchema(schema));
    const env = { DATABASE_URL: TEST_DATABASE_URL, HOOKLINE_PG_SCHEMA: schema };
    // An API process with the operator's token, as the fleet is meant to run.
    await runHookline(cleanup, join(dir, "api"), env, "api");
    const workerDir = join(dir, "worker");
    const worker = await runHookline(
      cleanup,
      workerDir,
      { ...env, HOOKLINE_ADMIN_TOKEN: "" },
      "worker",
    );

    expect(existsSync(join(workerDir, "admin-token"))).toBe(false);
    const tokens = await adminQuery(`SELECT name FROM ${schema}.api_tokens`);
    expect(tokens.map((t) => t.name)).toEqual(["admin"]);

    const url = /Health:\s+(http:\/\/\S+)\/api\/v1\/health/.exec(worker.output())?.[1];
    const metrics = await fetch(`${url}/metrics`, {
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(metrics.status).toBe(200);
  }, 60_000);
});
