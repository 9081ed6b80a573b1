/**
 * A transaction whose process stood still between two statements (stopped, its machine paused)
 * for longer than `idleInTransactionTimeoutMs` is ended by the server, which rolls it back and
 * closes the session. The next statement failed as "Client has encountered a connection error and
 * is not queryable", which says neither why nor that the transaction is gone; it fails as
 * StoreUnavailableError saying the server ended it for idling, and the pool carries on with a
 * new connection.
 */
import { expect, it } from "vitest";
import { StoreUnavailableError } from "../../src/errors.js";
import { openPool } from "../../src/store/postgres/connections.js";
import { exec, mapError, one, tx } from "../../src/store/postgres/database.js";
import { adminQuery, TEST_DATABASE_URL } from "../support/postgres.js";
import { useCleanup } from "../support/cleanup.js";

const cleanup = useCleanup();

it("the statement after the server ended the transaction fails as unavailable, saying why", async () => {
  const pool = openPool({
    connectionString: TEST_DATABASE_URL,
    schema: "hl_idle",
    poolSize: 1,
    idleInTransactionTimeoutMs: 200,
  });
  cleanup.push(() => pool.end());

  const failure = await tx(pool, async (c) => {
    const pid = Number((await one(c, "SELECT pg_backend_pid() AS pid"))!.pid);
    // Idle in the transaction until the server has ended its session.
    while ((await adminQuery("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [pid])).length) {
      await new Promise((r) => setTimeout(r, 20));
    }
    await exec(c, "SELECT 1");
  }).then(
    () => new Error("the transaction went through"),
    (err: unknown) => err,
  );

  const mapped = mapError(failure);
  expect(mapped).toBeInstanceOf(StoreUnavailableError);
  expect((mapped as Error).message).toContain(
    "25P03: the server ended a transaction of this process's left idle past HOOKLINE_PG_QUERY_TIMEOUT_MS",
  );
  expect(await one(pool, "SELECT 2 AS n")).toEqual({ n: 2 });
});

it("the server's own word for it, read by the statement itself, is the store unavailable too", () => {
  const word = Object.assign(
    new Error("terminating connection due to idle-in-transaction timeout"),
    { code: "25P03" },
  );
  expect(mapError(word)).toBeInstanceOf(StoreUnavailableError);
});
