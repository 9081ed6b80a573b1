/**
 * configuration.md: hookline's role "needs CREATE on the database, or an existing schema it owns".
 * The second is the least-privilege set-up a database administrator makes (CREATE SCHEMA …
 * AUTHORIZATION the role, without CREATE on the database, which PostgreSQL gives only the
 * database's owner): hookline starts there, migrates its tables into that schema, and works.
 */
import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import { PostgresStore } from "../../src/store/postgres/store.js";
import { useCleanup } from "../support/cleanup.js";
import { adminQuery, dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { anApplication } from "./behaviour/fixtures.js";

const cleanup = useCleanup();

it("starts on an existing schema its role owns, without CREATE on the database", async () => {
  const role = `hl_test_owner_${randomBytes(4).toString("hex")}`;
  const database = new URL(TEST_DATABASE_URL).pathname.slice(1);
  const schema = freshSchemaName();
  await adminQuery(`CREATE ROLE ${role} LOGIN`);
  cleanup.push(async () => {
    await adminQuery(`DROP OWNED BY ${role}`);
    await adminQuery(`DROP ROLE ${role}`);
  });
  await adminQuery(`CREATE SCHEMA ${schema} AUTHORIZATION ${role}`);
  cleanup.push(() => dropSchema(schema));
  const [privilege] = await adminQuery("SELECT has_database_privilege($1, $2, 'CREATE') AS ok", [
    role,
    database,
  ]);
  expect(privilege!.ok).toBe(false);

  const url = new URL(TEST_DATABASE_URL);
  url.username = role;
  url.password = "";
  const store = await PostgresStore.open({ connectionString: url.toString(), schema, poolSize: 2 });
  cleanup.push(() => store.close());
  const app = await store.createApplication(anApplication());
  expect(await store.findApplication(app.id)).toEqual(app);
});
