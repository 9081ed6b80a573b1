/**
 * A copy writes every row of a store in one go, and PostgreSQL's planner knows nothing of them
 * until autovacuum gets round to the tables (up to a minute or more, table by table): the first
 * claims and lists on the copy would be planned as for empty tables. The copy gathers the
 * statistics of what it wrote once it has committed.
 */
import { expect, it } from "vitest";
import { useCleanup } from "../support/cleanup.js";
import { adminQuery, aSchemaName } from "../support/postgres.js";
import { aSqliteDataDir, copyToSchema } from "../support/store-copy.js";

const cleanup = useCleanup();

it("has PostgreSQL's statistics of every table it wrote once it ends", async () => {
  const { dir } = await aSqliteDataDir(cleanup, { messages: 3 });
  const schema = aSchemaName(cleanup);

  const run = await copyToSchema(dir, schema);

  expect(run.failure).toBeNull();
  const unanalyzed = await adminQuery(
    `SELECT relname FROM pg_stat_user_tables
     WHERE schemaname = $1 AND last_analyze IS NULL AND last_autoanalyze IS NULL
       AND relname IN ('messages', 'deliveries', 'attempts', 'endpoints', 'applications')
     ORDER BY relname`,
    [schema],
  );
  expect(unanalyzed).toEqual([]);
});
