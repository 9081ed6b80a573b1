/**
 * Deleting an endpoint on PostgreSQL removes its deliveries before its dead-letter records (the
 * order recording an outcome takes them in). A replay of a record not yet deleted can commit its
 * delivery in between; the deletion then removes deliveries once more before the endpoint, or
 * that delivery would outlive it, claimed by nobody's endpoint. The race is forced: an admin
 * connection holds one of the endpoint's attempts, so the deletion stops between the two.
 */
import { expect, it } from "vitest";
import { newId } from "../../src/ids.js";
import { deadLetter } from "./behaviour/dlq-fixtures.js";
import { HOUR, SECOND, seedApp, T0 } from "./behaviour/fixtures.js";
import {
  aSharedStore,
  BLOCKED_BY,
  freshSchemaName,
  raceConnections,
  useCleanup,
  waitForPid,
} from "../support/postgres.js";

const cleanup = useCleanup();

it("a replay queued while its endpoint is being deleted goes with the endpoint", async () => {
  const schema = freshSchemaName();
  const store = await aSharedStore(cleanup, schema);
  const { admin, watch, adminPid } = await raceConnections(cleanup);
  const { app, endpoints } = await seedApp(store);
  const endpointId = endpoints[0]!.id;
  const record = await deadLetter(store, app.id, { endpointId, at: T0 + SECOND });
  const now = T0 + HOUR;

  await admin.query("BEGIN");
  await admin.query(`SELECT 1 FROM ${schema}.attempts WHERE endpoint_id = $1 FOR UPDATE`, [
    endpointId,
  ]);
  const deleting = store.deleteEndpoint(app.id, endpointId);
  await waitForPid(watch, BLOCKED_BY, [adminPid]);
  // The deletion is past the endpoint's deliveries and waits before its records.
  const replayed = await store.enqueueReplay({
    deadLetterId: record.id,
    deliveryId: newId("dlv", now),
    now,
    actor: "ops",
    note: null,
    abandonAfter: null,
  });
  expect(replayed.ok).toBe(true);
  await admin.query("COMMIT");
  await deleting;

  const left = await admin.query(`SELECT id FROM ${schema}.deliveries WHERE endpoint_id = $1`, [
    endpointId,
  ]);
  expect(left.rows).toEqual([]);
  expect(await store.getDeadLetter(record.id)).toBeNull();
});
