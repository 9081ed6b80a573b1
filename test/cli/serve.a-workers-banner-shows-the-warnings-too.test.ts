/**
 * A worker's start banner carries the same warnings as an API process's: a HOOKLINE_* variable
 * that is no setting, and encryption at rest being off. It showed neither, so a typo in a
 * worker-only setting (its heartbeat, say) went unseen by whoever read the banner.
 */
import { describe, expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { runHookline } from "../support/process.js";

const cleanup = useCleanup();

describe("a worker's start banner", () => {
  it("warns of an unknown setting and of encryption being off", async () => {
    const dir = tempDir(cleanup, "hookline-worker-banner-");
    const schema = freshSchemaName();
    cleanup.push(() => dropSchema(schema));
    const running = await runHookline(
      cleanup,
      dir,
      {
        DATABASE_URL: TEST_DATABASE_URL,
        HOOKLINE_PG_SCHEMA: schema,
        HOOKLINE_WORKER_HEARTBEAT: "500",
      },
      "worker",
    );
    const banner = running.output();
    expect(banner).toContain(
      "  WARNING:      HOOKLINE_WORKER_HEARTBEAT is not a hookline setting (did you mean HOOKLINE_WORKER_HEARTBEAT_MS, in milliseconds?)",
    );
    expect(banner).toContain(
      "  WARNING:      secrets and payloads are stored unencrypted (set HOOKLINE_ENCRYPTION_KEY)",
    );
  }, 60_000);
});
