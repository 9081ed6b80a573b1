/**
 * An API-only process (`--role api`) makes no deliveries, yet on a stop signal it logged
 * "stopping: finishing deliveries in flight", sending an operator to look for deliveries that
 * were never its own. It now says it finishes the API's requests in flight.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { spawnHookline, type HooklineProcess } from "../support/process.js";

let running: HooklineProcess | null = null;
let dir = "";
let schema = "";
afterEach(async () => {
  running?.child.kill("SIGKILL");
  await running?.exited;
  running = null;
  await dropSchema(schema);
  rmSync(dir, { recursive: true, force: true });
});

describe("an API-only process told to stop", () => {
  it("says it finishes requests in flight, not deliveries", async () => {
    dir = mkdtempSync(join(tmpdir(), "hookline-api-stop-"));
    schema = freshSchemaName();
    running = await spawnHookline(
      dir,
      { DATABASE_URL: TEST_DATABASE_URL, HOOKLINE_PG_SCHEMA: schema, HOOKLINE_LOG_LEVEL: "info" },
      "api",
    );
    running.child.kill("SIGTERM");
    expect(await running.exited).toBe(0);
    const stopping = running
      .output()
      .split("\n")
      .find((l) => l.includes('"stopping'));
    expect(stopping).toContain("finishing API requests in flight");
    expect(stopping).not.toContain("deliveries");
  }, 60_000);
});
