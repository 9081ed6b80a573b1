/**
 * A first Ctrl-C (SIGTERM, SIGHUP) that reaches `hookline keys rotate` during its last batch
 * cannot stop it between two batches: none is left. The rotation then finished and said "done"
 * with exit 0, as if the signal had never come, and the operator who asked it to stop was left to
 * wonder whether it had heard, and what was left half done. It now says, as `store copy` does,
 * that it finished after the signal and that the rotation is complete.
 *
 * The last batch (the idempotency keys, none here, so one batch) waits for a lock the test holds
 * on that table in PostgreSQL, and the signal comes while it waits.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { expect, it } from "vitest";
import { FieldCipher } from "../../src/security/cipher.js";
import { PostgresStore } from "../../src/store/postgres/store.js";
import { spawnCli } from "../support/built-cli.js";
import { useCleanup } from "../support/cleanup.js";
import { adminQuery, dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { accept, anApplication, anEndpoint } from "../store/behaviour/fixtures.js";

const cleanup = useCleanup();

it("says it finished after the signal, heard during its last batch, exit 0", async () => {
  const schema = freshSchemaName();
  cleanup.push(() => dropSchema(schema));
  const [old, key] = [randomBytes(32), randomBytes(32)];
  const store = await PostgresStore.open({
    connectionString: TEST_DATABASE_URL,
    schema,
    poolSize: 2,
    cipher: new FieldCipher(old),
  });
  const app = await store.createApplication(anApplication({ uid: "acme" }));
  await store.createEndpoint(anEndpoint(app.id, { uid: "ep" }));
  await accept(store, app.id, { payload: Buffer.from('{"invoice":1}') });
  await store.close();

  // Plain reads go through (the key check at start); the batch's SELECT … FOR UPDATE waits.
  const holder = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await holder.connect();
  cleanup.push(() => holder.end());
  await holder.query("BEGIN");
  await holder.query(`LOCK TABLE ${schema}.idempotency_keys IN EXCLUSIVE MODE`);

  const run = spawnCli(["keys", "rotate"], {
    DATABASE_URL: TEST_DATABASE_URL,
    HOOKLINE_PG_SCHEMA: schema,
    HOOKLINE_ENCRYPTION_KEY: key.toString("base64"),
    HOOKLINE_ENCRYPTION_OLD_KEYS: old.toString("base64"),
  });
  cleanup.push(async () => {
    run.child.kill("SIGKILL");
    await run.exited;
  });
  const lastBatchWaits = async () =>
    (
      await adminQuery(
        `SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'
        AND query ~ 'FROM idempotency_keys'`,
        [`hookline/${schema}`],
      )
    ).length > 0;
  while (!(await lastBatchWaits())) {
    expect(run.child.exitCode, run.out() + run.err()).toBeNull();
    await new Promise((r) => setTimeout(r, 5));
  }

  run.child.kill("SIGINT");
  await holder.query("COMMIT");

  expect(await run.exited, run.out() + run.err()).toBe(0);
  expect(run.out()).toContain("endpoints: 1 rewritten of 1\n");
  expect(run.out()).toContain("messages: 1 rewritten of 1\n");
  expect(run.out()).toContain("done: the old keys may now be removed");
  expect(run.err()).toBe(
    "hookline: keys rotate finished after SIGINT, heard during its last batch: the rotation is " +
      "complete\n",
  );
}, 60_000);
