import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StoreUnavailableError } from "../../src/errors.js";
import { PostgresStore } from "../../src/store/postgres/store.js";
import { adminQuery, dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { anApplication } from "./behaviour/fixtures.js";

/** The test database's URL as another user. */
function asUser(user: string): string {
  const url = new URL(TEST_DATABASE_URL);
  url.username = user;
  url.password = "";
  return url.toString();
}

describe("postgres errors map to hookline's errors", () => {
  let schema: string;

  beforeEach(() => {
    schema = freshSchemaName();
  });

  afterEach(async () => {
    await dropSchema(schema);
  });

  it("a server that does not answer is StoreUnavailableError, on open and on every call", async () => {
    const options = {
      connectionString: "postgres://postgres@127.0.0.1:1/test",
      schema,
      poolSize: 1,
    };
    await expect(PostgresStore.open(options)).rejects.toBeInstanceOf(StoreUnavailableError);
    const store = new PostgresStore(options);
    try {
      await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.findApplication("app_x")).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      await store.close();
    }
  });

  it("a connection ended by an administrator is StoreUnavailableError; the next call reconnects", async () => {
    const store = await PostgresStore.open({
      connectionString: TEST_DATABASE_URL,
      schema,
      poolSize: 2,
    });
    const app = await store.createApplication(anApplication());
    // Hold a lock the store's read must wait for, then end the store's connection under it.
    const blocker = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await blocker.connect();
    try {
      await blocker.query("BEGIN");
      await blocker.query(`LOCK TABLE ${schema}.applications IN ACCESS EXCLUSIVE MODE`);
      // Settled into a value at once, so its rejection is handled however early it comes.
      const read = store.findApplication(app.id).then(
        () => new Error("resolved"),
        (err: unknown) => err,
      );
      const waiting = async () =>
        (
          await adminQuery(
            `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
            [`hookline/${schema}`],
          )
        ).length;
      await expect.poll(waiting).toBe(1);
      await adminQuery(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`,
        [`hookline/${schema}`],
      );
      const error = await read;
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(((error as Error).cause as { code?: string }).code).toBe("57P01");
      await blocker.query("ROLLBACK");
      expect(await store.findApplication(app.id)).toEqual(app);
    } finally {
      await blocker.end();
      await store.close();
    }
  });

  it("too many connections is StoreUnavailableError", async () => {
    const role = `hl_test_full_${randomBytes(4).toString("hex")}`;
    await adminQuery(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 0`);
    const store = new PostgresStore({ connectionString: asUser(role), schema, poolSize: 1 });
    try {
      const error = await store.ping().then(
        () => new Error("resolved"),
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(((error as Error).cause as { code?: string }).code).toBe("53300");
    } finally {
      await store.close();
      await adminQuery(`DROP ROLE ${role}`);
    }
  });
});
