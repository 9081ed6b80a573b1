/**
 * A `hookline serve` frozen as it migrates on PostgreSQL (its process stopped, its VM paused, its
 * machine gone without closing the connection) holds the schema's migration lock inside its
 * transaction for as long as the server believes the connection open: until TCP keep-alive gives
 * up on it, hours later. Every hookline started on the schema meanwhile waited on that lock, and
 * a migration's wait for it has no bound. The server now ends a transaction of serve's left idle
 * longer than HOOKLINE_PG_QUERY_TIMEOUT_MS, and the next hookline starts; the frozen one, once
 * continued, finds its session gone and stops, saying why.
 */
import pg from "pg";
import { expect, it } from "vitest";
import { PostgresStore } from "../../src/store/postgres/store.js";
import { freezeBehindLock } from "../support/built-cli.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { runHookline, spawnServe, stopAfter } from "../support/process.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";

const cleanup = useCleanup();

it("the next hookline starts once the server has ended the frozen one's migration", async () => {
  const schema = freshSchemaName();
  cleanup.push(() => dropSchema(schema));
  // Made beforehand: each start takes the migration lock, in each migration's transaction, even
  // when there is nothing to apply.
  await (
    await PostgresStore.open({ connectionString: TEST_DATABASE_URL, schema, poolSize: 1 })
  ).close();
  const env = {
    DATABASE_URL: TEST_DATABASE_URL,
    HOOKLINE_PG_SCHEMA: schema,
    HOOKLINE_PG_QUERY_TIMEOUT_MS: "3000",
  };
  // Given the admin token, hookline keeps nothing in its data dir on PostgreSQL: both share one.
  const dataDir = tempDir(cleanup, "hookline-frozen-migration-");

  // The test holds the ledger: the frozen one's migration takes the migration lock, then waits
  // for the ledger inside its transaction, and is frozen there, holding the lock.
  const holder = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await holder.connect();
  cleanup.push(() => holder.end());
  await holder.query("BEGIN");
  await holder.query(`LOCK TABLE ${schema}.hookline_migrations IN ACCESS EXCLUSIVE MODE`);
  // Not waited for: it is frozen before it listens.
  const frozen = stopAfter(cleanup, spawnServe(dataDir, env), "SIGKILL");
  await freezeBehindLock(frozen, schema, () => holder.query("ROLLBACK"));

  const next = await runHookline(cleanup, dataDir, env);
  const health = await fetch(`${next.url}/api/v1/health/ready`);
  expect(health.status).toBe(200);

  // Continued, the frozen one finds its transaction ended, and stops rather than starting on a
  // migration it no longer holds.
  frozen.child.kill("SIGCONT");
  expect(await frozen.exited, frozen.out() + frozen.err()).toBe(1);
  expect(frozen.err()).toContain(
    "PostgreSQL store unavailable (25P03: the server ended a transaction of this process's left idle past HOOKLINE_PG_QUERY_TIMEOUT_MS",
  );
}, 60_000);
