/**
 * An API-only process (`--role api`) makes no deliveries, yet on a stop signal it logged
 * "stopping: finishing deliveries in flight", sending an operator to look for deliveries that
 * were never its own. It now says it finishes the API's requests in flight.
 */
import { describe, expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { spawnHookline, stopAfter } from "../support/process.js";

const cleanup = useCleanup();

describe("an API-only process told to stop", () => {
  it("says it finishes requests in flight, not deliveries", async () => {
    const dir = tempDir(cleanup, "hookline-api-stop-");
    const schema = freshSchemaName();
    cleanup.push(() => dropSchema(schema));
    const running = await spawnHookline(
      dir,
      { DATABASE_URL: TEST_DATABASE_URL, HOOKLINE_PG_SCHEMA: schema, HOOKLINE_LOG_LEVEL: "info" },
      "api",
    );
    // The test stops it itself; killed only if it failed before that.
    stopAfter(cleanup, running, "SIGKILL");
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
