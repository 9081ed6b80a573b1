/**
 * The copy writes in one transaction: one that fails partway (a row the destination refuses, the
 * connection lost) leaves none of its rows in the schema, says what failed, and leaves the SQLite
 * store as it was; once the fault is gone, the same copy goes through.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { PostgresStore } from "../../src/store/postgres/store.js";
import { useCleanup } from "../support/cleanup.js";
import { adminQuery, aSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { aSqliteDataDir, copyToSchema, rowsIn } from "../support/store-copy.js";

const cleanup = useCleanup();

/** A schema migrated and empty, as the copy would leave it before writing, dropped after. */
async function anEmptySchema(): Promise<string> {
  const schema = aSchemaName(cleanup);
  const store = await PostgresStore.open({
    connectionString: TEST_DATABASE_URL,
    schema,
    poolSize: 1,
  });
  await store.close();
  return schema;
}

/** A trigger on the schema's messages doing `action` when the message `id` is written. */
async function onMessage(schema: string, id: string, action: string): Promise<void> {
  await adminQuery(`CREATE FUNCTION ${schema}.fault() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.id = '${id}' THEN ${action}; END IF;
      RETURN NEW;
    END $$`);
  await adminQuery(
    `CREATE TRIGGER fault BEFORE INSERT ON ${schema}.messages FOR EACH ROW EXECUTE FUNCTION ${schema}.fault()`,
  );
}

const sha = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

it("a row refused in the third batch of messages leaves no row of the copy", async () => {
  const { dir, messageIds } = await aSqliteDataDir(cleanup, { messages: 1_200 });
  const before = sha(join(dir, "hookline.db"));
  const schema = await anEmptySchema();
  const bad = messageIds[1_100]!;
  await onMessage(schema, bad, "RAISE EXCEPTION 'refused on purpose'");

  const run = await copyToSchema(dir, schema);
  expect(run.failure?.message).toBe(
    `the copy failed: writing messages (1000 of 1200 rows written) failed: refused on purpose; none of its rows were kept in the PostgreSQL schema "${schema}" (they were written in one transaction, rolled back), and the SQLite store is unchanged`,
  );
  expect(await rowsIn(schema)).toEqual({});
  expect(sha(join(dir, "hookline.db"))).toBe(before);

  await adminQuery(`DROP TRIGGER fault ON ${schema}.messages`);
  const again = await copyToSchema(dir, schema);
  expect(again.failure).toBeNull();
  expect(await rowsIn(schema)).toEqual({
    applications: 1,
    endpoints: 1,
    messages: 1_200,
    deliveries: 1_200,
  });
});

it("the connection lost partway leaves no row of the copy, and says the database was lost", async () => {
  const { dir, messageIds } = await aSqliteDataDir(cleanup, { messages: 600 });
  const schema = await anEmptySchema();
  await onMessage(schema, messageIds[550]!, "PERFORM pg_terminate_backend(pg_backend_pid())");

  const run = await copyToSchema(dir, schema);
  expect(run.failure?.message).toMatch(
    /^the copy failed \(PostgreSQL was lost or did not answer\): writing messages \(500 of 600 rows written\) failed: .*; none of its rows were kept/,
  );
  expect(await rowsIn(schema)).toEqual({});
});
