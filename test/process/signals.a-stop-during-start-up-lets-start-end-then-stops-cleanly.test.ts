/**
 * A signal while `hookline serve` starts (a service manager's stop, a container restarted in a
 * loop). Once the store is open, start takes work (sender threads, deliveries, the fleet): the
 * signal lets start end, then stops as it does after start, exit 0, the data dir released. Before,
 * the handlers came only after start, and such a signal ended the process at once, saying nothing,
 * with whatever it had begun to deliver in flight. While the store is still being opened (on
 * PostgreSQL, maybe waiting for another process's migration, for as long as that takes) nothing is
 * taken yet: the signal ends the process at once, as it did, now saying so.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { MIGRATION_LOCK } from "../../src/store/postgres/migrate.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { spawnHookline, spawnServe, stopAfter } from "../support/process.js";

describe("a signal during start-up", () => {
  const cleanup = useCleanup();

  it("once the store is open, lets start end and stops cleanly", async () => {
    const dir = tempDir(cleanup, "hookline-start-stop-");
    // Many sender threads make the rest of start-up last, as a loaded machine does.
    const env = { HOOKLINE_SENDER_THREADS: "8", HOOKLINE_LOG_LEVEL: "info" };
    const proc = stopAfter(cleanup, spawnServe(dir, env), "SIGKILL");
    // Logged as the store has been checked, before the sender threads start.
    while (!proc.output().includes("ENCRYPTION AT REST IS OFF")) {
      await new Promise((r) => setTimeout(r, 10));
    }
    proc.child.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    expect(proc.output()).toContain('"signal":"SIGTERM","msg":"stopping: finishing deliveries');
    expect(proc.output()).not.toContain("hookline is running");

    // The data dir was let go: the next start takes it.
    const again = stopAfter(cleanup, await spawnHookline(dir), "SIGKILL");
    again.child.kill("SIGTERM");
    expect(await again.exited).toBe(0);
  }, 120_000);

  it("while PostgreSQL migrations wait for another process, ends at once and says so", async () => {
    const schema = freshSchemaName();
    cleanup.push(() => dropSchema(schema));
    // Another process migrating this schema, as far as hookline can tell.
    const other = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await other.connect();
    cleanup.push(() => other.end());
    await other.query("BEGIN");
    await other.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [MIGRATION_LOCK, schema]);
    const proc = stopAfter(
      cleanup,
      spawnServe(tempDir(cleanup, "hookline-start-stop-"), {
        DATABASE_URL: TEST_DATABASE_URL,
        HOOKLINE_PG_SCHEMA: schema,
      }),
      "SIGKILL",
    );
    // Waiting on the lock, as pg_stat_activity shows it (to a connection not in a transaction,
    // which would see one snapshot of it).
    const watch = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await watch.connect();
    cleanup.push(() => watch.end());
    for (;;) {
      const waiting = await watch.query(
        "SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
        [`hookline/${schema}`],
      );
      if (waiting.rows.length > 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    proc.child.kill("SIGTERM");
    expect(await proc.exited).toBe("SIGTERM");
    expect(proc.output()).toContain("hookline: stopped by SIGTERM while opening the store");
    await other.query("ROLLBACK");
  }, 120_000);
});
