/**
 * A worker stopped while PostgreSQL is away cannot hand its endpoints back. Its log ended with
 * "stopping failed" and a stack trace, which read as a crash and said nothing of its deliveries;
 * it now says what it left and who picks it up.
 */
import { expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { spawnHookline } from "../support/process.js";
import { TcpProxy } from "../support/tcp-proxy.js";

const cleanup = useCleanup();

it("says the database did not hear of the stop, and what becomes of what it held", async () => {
  const schema = freshSchemaName();
  cleanup.push(() => dropSchema(schema));
  const pgUrl = new URL(TEST_DATABASE_URL);
  const proxy = await TcpProxy.start({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) });
  cleanup.push(() => proxy.cut());
  pgUrl.port = String(proxy.port);
  const worker = await spawnHookline(
    tempDir(cleanup, "hookline-untold-"),
    {
      DATABASE_URL: pgUrl.toString(),
      HOOKLINE_PG_SCHEMA: schema,
      HOOKLINE_PG_QUERY_TIMEOUT_MS: "1000",
      HOOKLINE_SHUTDOWN_TIMEOUT_MS: "1000",
    },
    "worker",
  );
  cleanup.push(async () => {
    worker.child.kill("SIGKILL");
    await worker.exited;
  });

  await proxy.cut();
  worker.child.kill("SIGTERM");
  expect(await worker.exited).toBe(1);
  const log = worker.output();
  expect(log).toContain("stopped, but the database is unavailable");
  expect(log).toContain("HOOKLINE_WORKER_DEAD_AFTER_MS");
  expect(log).not.toContain("stopping failed");
});
