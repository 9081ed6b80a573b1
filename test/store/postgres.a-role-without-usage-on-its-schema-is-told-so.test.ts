/**
 * A schema made by someone else (a database administrator's CREATE SCHEMA without AUTHORIZATION)
 * on which hookline's role has no USAGE: PostgreSQL leaves it off the search_path, and start-up
 * failed with "PostgreSQL store unavailable (3F000): no schema has been selected to create in",
 * the code the runbook reads as the schema having been dropped. It now names the missing grant.
 */
import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import { PostgresStore } from "../../src/store/postgres/store.js";
import { useCleanup } from "../support/cleanup.js";
import { adminQuery, dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";

const cleanup = useCleanup();

it("says the role has no USAGE on the schema it is given", async () => {
  const role = `hl_test_nousage_${randomBytes(4).toString("hex")}`;
  const schema = freshSchemaName();
  await adminQuery(`CREATE ROLE ${role} LOGIN`);
  cleanup.push(async () => {
    await adminQuery(`DROP OWNED BY ${role}`);
    await adminQuery(`DROP ROLE ${role}`);
  });
  await adminQuery(`CREATE SCHEMA ${schema}`);
  cleanup.push(() => dropSchema(schema));

  const url = new URL(TEST_DATABASE_URL);
  url.username = role;
  url.password = "";
  const opening = PostgresStore.open({ connectionString: url.toString(), schema, poolSize: 2 });
  const failure = await opening.then(
    async (store) => {
      await store.close();
      return null;
    },
    (err: unknown) => err as Error,
  );
  expect(failure?.message).toContain(`permission denied for schema ${schema}`);
  expect(failure?.message).toContain("no USAGE");
  expect(failure?.message).not.toContain("3F000");
});
