/**
 * A worker's start banner carries the same warnings as an API process's: a HOOKLINE_* variable
 * that is no setting, and encryption at rest being off. It showed neither, so a typo in a
 * worker-only setting (its heartbeat, say) went unseen by whoever read the banner.
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
  running?.child.kill("SIGTERM");
  await running?.exited;
  running = null;
  await dropSchema(schema);
  rmSync(dir, { recursive: true, force: true });
});

describe("a worker's start banner", () => {
  it("warns of an unknown setting and of encryption being off", async () => {
    dir = mkdtempSync(join(tmpdir(), "hookline-worker-banner-"));
    schema = freshSchemaName();
    running = await spawnHookline(
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
      "  WARNING:      HOOKLINE_WORKER_HEARTBEAT is not a hookline setting (did you mean HOOKLINE_WORKER_HEARTBEAT_MS?)",
    );
    expect(banner).toContain(
      "  WARNING:      secrets and payloads are stored unencrypted (set HOOKLINE_ENCRYPTION_KEY)",
    );
  }, 60_000);
});
