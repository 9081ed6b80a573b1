/**
 * The copy's PostgreSQL session has the server end its transaction once left idle past
 * HOOKLINE_PG_QUERY_TIMEOUT_MS, and the copy is idle there while it reads SQLite. It counted each
 * table's rows in SQLite inside that transaction (for its progress, and again before committing),
 * and read the dead-letter depth there too: on a large store on a cold disk one count(*) can
 * outlast the timeout, and the server ended the copy. The counts come from the SQLite snapshot
 * the whole copy reads, so they are taken once, before the transaction begins.
 */
import { afterEach, expect, it, vi } from "vitest";
import { PostgresDestination } from "../../src/store/copy/postgres-destination.js";
import { SqliteSource } from "../../src/store/copy/sqlite-source.js";
import { useCleanup } from "../support/cleanup.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { aSqliteDataDir, runStoreCopy } from "../support/store-copy.js";

const cleanup = useCleanup();
afterEach(() => vi.restoreAllMocks());

it("counts SQLite's rows and dead-letter depth before its PostgreSQL transaction, not in it", async () => {
  const { dir } = await aSqliteDataDir(cleanup, { messages: 1_100 });
  const schema = freshSchemaName();
  cleanup.push(() => dropSchema(schema));

  // Whether the copy's transaction is open, told by the destination's own steps.
  let inTransaction = false;
  const begin = PostgresDestination.prototype.begin;
  vi.spyOn(PostgresDestination.prototype, "begin").mockImplementation(async function (
    this: PostgresDestination,
  ) {
    inTransaction = true;
    return begin.call(this);
  });
  const close = PostgresDestination.prototype.close;
  vi.spyOn(PostgresDestination.prototype, "close").mockImplementation(async function (
    this: PostgresDestination,
  ) {
    await close.call(this);
    inTransaction = false;
  });
  const readInTransaction: string[] = [];
  const count = SqliteSource.prototype.count;
  vi.spyOn(SqliteSource.prototype, "count").mockImplementation(function (
    this: SqliteSource,
    table: string,
  ) {
    if (inTransaction) readInTransaction.push(`count(${table})`);
    return count.call(this, table);
  });
  const depth = SqliteSource.prototype.depth;
  vi.spyOn(SqliteSource.prototype, "depth").mockImplementation(function (this: SqliteSource) {
    if (inTransaction) readInTransaction.push("depth()");
    return depth.call(this);
  });

  const run = await runStoreCopy({ HOOKLINE_DATA_DIR: dir }, [
    "--to",
    TEST_DATABASE_URL,
    "--schema",
    schema,
  ]);
  expect(run.failure).toBeNull();
  expect(readInTransaction).toEqual([]);
  // The counts taken before still serve the copy's check before its commit and its summary.
  expect(run.out).toContain("they match");
  expect(run.out).toMatch(/\n {2}messages: +1100\n/);
});
