/**
 * Retention on PostgreSQL against a resend that commits while retention's first look at the old
 * messages is under way: the look does not see the resend, retention locks the message, and its
 * second look (a statement of its own) finds the delivery due and leaves the message. When every
 * message of the batch is left so, the batch deletes nothing, and the run must go on past them:
 * the messages after them are still to be pruned. It ended there, as if nothing were left, and
 * they waited for the next hourly run.
 *
 * The window is inside one statement, so it is forced from the server: retention runs as a role
 * of its own, under a row-level policy on messages whose check waits on an advisory lock the test
 * holds while it reads the resent message. The resend is made by a superuser store (which no
 * policy applies to) while retention waits there.
 */
import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import { RetentionPruner } from "../../src/dlq/retention.js";
import { newId } from "../../src/ids.js";
import { PostgresStore } from "../../src/store/postgres/store.js";
import { accept, claimAll, HOUR, seedApp, succeeded, T0 } from "./behaviour/fixtures.js";
import { FakeClock } from "../support/fake-clock.js";
import { useCleanup } from "../support/cleanup.js";
import {
  adminQuery,
  aSharedStore,
  BLOCKED_BY,
  dropSchema,
  freshSchemaName,
  raceConnections,
  TEST_DATABASE_URL,
  waitForPid,
} from "../support/postgres.js";

const RETENTION = 30 * 24 * HOUR;
const NOW = T0 + RETENTION + HOUR;
// The advisory lock the policy waits on (two keys, clear of hookline's own).
const GATE = [0x686c7467, 1] as const;

const cleanup = useCleanup();

it("a batch whose messages were all resent as it picked them does not end the run", async () => {
  const role = `hl_test_pruner_${randomBytes(4).toString("hex")}`;
  const schema = freshSchemaName();
  await adminQuery(`CREATE ROLE ${role} LOGIN`);
  cleanup.push(async () => {
    await adminQuery(`DROP OWNED BY ${role}`);
    await adminQuery(`DROP ROLE ${role}`);
  });
  await adminQuery(`CREATE SCHEMA ${schema} AUTHORIZATION ${role}`);
  cleanup.push(() => dropSchema(schema));
  const url = new URL(TEST_DATABASE_URL);
  url.username = role;
  url.password = "";
  const pruning = await PostgresStore.open({
    connectionString: url.toString(),
    schema,
    poolSize: 2,
  });
  cleanup.push(() => pruning.close());
  const store = await aSharedStore(cleanup, schema);
  const { admin, watch, adminPid } = await raceConnections(cleanup);

  // Two old messages, both delivered: the first is resent while retention picks it.
  const { app, endpoints } = await seedApp(store);
  const { message: resent } = await accept(store, app.id, { now: T0 });
  const { message: later } = await accept(store, app.id, { now: T0 + 1 });
  await store.recordAttempts((await claimAll(store, T0 + 1)).map((d) => succeeded(d, T0 + 1)));

  await adminQuery(`CREATE FUNCTION ${schema}.gate(id text) RETURNS boolean
    LANGUAGE plpgsql VOLATILE AS $$
    BEGIN
      IF id = '${resent.id}' THEN PERFORM pg_advisory_xact_lock_shared(${GATE[0]}, ${GATE[1]});
      END IF;
      RETURN true;
    END $$`);
  await adminQuery(`ALTER TABLE ${schema}.messages ENABLE ROW LEVEL SECURITY`);
  await adminQuery(`ALTER TABLE ${schema}.messages FORCE ROW LEVEL SECURITY`);
  await adminQuery(
    `CREATE POLICY gate ON ${schema}.messages USING (${schema}.gate(id)) WITH CHECK (true)`,
  );
  await admin.query("SELECT pg_advisory_lock($1, $2)", [...GATE]);

  // A batch of 4 rows is one message a transaction: the resent message is the batch.
  const pruner = new RetentionPruner(pruning, new FakeClock(NOW), {
    retentionMs: RETENTION,
    batchSize: 4,
  });
  const run = pruner.runOnce();
  await waitForPid(watch, BLOCKED_BY, [adminPid]);
  const delivery = await store.enqueueResend({
    id: newId("dlv", NOW),
    appId: app.id,
    messageId: resent.id,
    endpointId: endpoints[0]!.id,
    now: NOW,
  });
  expect(delivery).not.toBeNull();
  await admin.query("SELECT pg_advisory_unlock($1, $2)", [...GATE]);

  expect((await run).messages).toBe(1);
  expect(await store.findMessage(app.id, later.id)).toBeNull();
  expect(await store.findMessage(app.id, resent.id)).not.toBeNull();
  expect((await store.listDeliveries(resent.id)).map((d) => d.state).sort()).toEqual([
    "pending",
    "succeeded",
  ]);
});
