/**
 * PostgreSQL stops letting hookline's role in while hookline runs (its password rotated, its
 * LOGIN taken away, pg_hba.conf changed): the connections it opens from then on are refused,
 * which is the database unusable to hookline, as at start-up: StoreUnavailableError (a 503 with
 * Retry-After from the API), not an unknown error (a 500). Once it may log in again, it carries on.
 */
import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import { StoreUnavailableError } from "../../src/errors.js";
import { PostgresStore } from "../../src/store/postgres/store.js";
import { useCleanup } from "../support/cleanup.js";
import { adminQuery, dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { anApplication } from "./behaviour/fixtures.js";

const cleanup = useCleanup();

it("a login refused after start-up is StoreUnavailableError, and it carries on once allowed", async () => {
  const role = `hl_test_login_${randomBytes(4).toString("hex")}`;
  const database = new URL(TEST_DATABASE_URL).pathname.slice(1);
  await adminQuery(`CREATE ROLE ${role} LOGIN`);
  await adminQuery(`GRANT CREATE ON DATABASE ${database} TO ${role}`);
  cleanup.push(async () => {
    await adminQuery(`DROP OWNED BY ${role}`);
    await adminQuery(`DROP ROLE ${role}`);
  });
  const url = new URL(TEST_DATABASE_URL);
  url.username = role;
  url.password = "";
  const schema = freshSchemaName();
  const store = await PostgresStore.open({ connectionString: url.toString(), schema, poolSize: 2 });
  cleanup.push(
    () => dropSchema(schema),
    () => store.close(),
  );
  const app = await store.createApplication(anApplication());

  await adminQuery(`ALTER ROLE ${role} NOLOGIN`);
  await adminQuery("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1", [
    role,
  ]);
  const codeOf = (err: unknown) => ((err as Error).cause as { code?: string } | undefined)?.code;
  // An idle connection of the pool may not have heard of its end yet: a query on it fails with
  // the termination (57P01, unavailable too), and the pool drops it; the next one logs in anew.
  let error: unknown;
  for (let i = 0; i < 3; i++) {
    error = await store.findApplication(app.id).then(
      () => new Error("resolved"),
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(StoreUnavailableError);
    if (codeOf(error) !== "57P01") break;
  }
  expect(codeOf(error)).toBe("28000");

  await adminQuery(`ALTER ROLE ${role} LOGIN`);
  expect(await store.findApplication(app.id)).toEqual(app);
});
