/**
 * A statement the server itself ends before it is done, for taking longer than a statement_timeout
 * or lock_timeout of DATABASE_URL's own options, or because an operator cancelled it
 * (pg_cancel_backend, as one may do to what pg_stat_activity shows stuck), is the database not
 * answering in time, as hookline's own query timeout is: StoreUnavailableError (a 503 with
 * Retry-After from the API, a retry from the engine), not an unknown error (a 500).
 */
import { expect, it } from "vitest";
import { StoreUnavailableError } from "../../src/errors.js";
import { PostgresStore } from "../../src/store/postgres/store.js";
import { useCleanup } from "../support/cleanup.js";
import {
  BLOCKED_BY,
  dropSchema,
  freshSchemaName,
  raceConnections,
  TEST_DATABASE_URL,
  waitForPid,
} from "../support/postgres.js";
import { anApplication } from "./behaviour/fixtures.js";

const cleanup = useCleanup();

/** A store on a fresh schema whose connections carry `options`; closed and dropped by cleanup. */
async function aStore(options?: string): Promise<{ store: PostgresStore; schema: string }> {
  const url = new URL(TEST_DATABASE_URL);
  if (options) url.searchParams.set("options", options);
  const schema = freshSchemaName();
  const store = await PostgresStore.open({ connectionString: url.toString(), schema, poolSize: 2 });
  cleanup.push(
    () => dropSchema(schema),
    () => store.close(),
  );
  return { store, schema };
}

/** The error a read of an application fails with while another session locks the table. */
async function readUnderLock(
  options: string | undefined,
  cut: (blocked: number) => Promise<void> = async () => {},
): Promise<unknown> {
  const { store, schema } = await aStore(options);
  const app = await store.createApplication(anApplication());
  const { admin, watch, adminPid } = await raceConnections(cleanup);
  await admin.query("BEGIN");
  await admin.query(`LOCK TABLE ${schema}.applications IN ACCESS EXCLUSIVE MODE`);
  const read = store.findApplication(app.id).then(
    () => new Error("resolved"),
    (err: unknown) => err,
  );
  await cut(await waitForPid(watch, BLOCKED_BY, [adminPid]));
  const error = await read;
  await admin.query("ROLLBACK");
  // The store goes on working once the lock is gone.
  expect(await store.findApplication(app.id)).toEqual(app);
  return error;
}

function expectUnavailable(error: unknown, code: string): void {
  expect(error).toBeInstanceOf(StoreUnavailableError);
  expect(((error as Error).cause as { code?: string }).code).toBe(code);
}

it("a statement ended by DATABASE_URL's statement_timeout is StoreUnavailableError", async () => {
  expectUnavailable(await readUnderLock("-c statement_timeout=200"), "57014");
});

it("a lock not taken within DATABASE_URL's lock_timeout is StoreUnavailableError", async () => {
  expectUnavailable(await readUnderLock("-c lock_timeout=200"), "55P03");
});

it("a statement an operator cancels is StoreUnavailableError", async () => {
  const { admin } = await raceConnections(cleanup);
  const error = await readUnderLock(undefined, async (blocked) => {
    await admin.query("SELECT pg_cancel_backend($1)", [blocked]);
  });
  expectUnavailable(error, "57014");
});
