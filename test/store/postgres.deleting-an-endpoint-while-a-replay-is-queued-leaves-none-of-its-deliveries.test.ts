/**
 * Deleting an endpoint on PostgreSQL leaves none of its deliveries, even with a replay of one of
 * its records asked for while the deletion runs. The deletion holds the endpoint's records before
 * it removes anything: a replay queued before that commits first, and its delivery and history go
 * with the others; one asked for after waits for the deletion and finds no record. (Taking
 * deliveries first instead, the delivery of a replay queued in between outlived the endpoint,
 * claimed by nobody; holding the records only as it deleted them, a replay queued after their
 * history was removed was acknowledged, then its record deleted and its history line left for
 * good.) The race is forced: an admin connection holds one of the endpoint's attempts, so the
 * deletion stops before records.
 */
import { expect, it } from "vitest";
import { newId } from "../../src/ids.js";
import { deadLetter } from "./behaviour/dlq-fixtures.js";
import { HOUR, SECOND, seedApp, T0 } from "./behaviour/fixtures.js";
import { useCleanup } from "../support/cleanup.js";
import { aStoreToRace, BLOCKED_BY, waitForPid } from "../support/postgres.js";

const cleanup = useCleanup();

it("a replay queued while its endpoint is being deleted goes with the endpoint", async () => {
  const { schema, store, admin, watch, adminPid } = await aStoreToRace(cleanup);
  const { app, endpoints } = await seedApp(store);
  const endpointId = endpoints[0]!.id;
  const record = await deadLetter(store, app.id, { endpointId, at: T0 + SECOND });
  const now = T0 + HOUR;

  await admin.query("BEGIN");
  await admin.query(`SELECT 1 FROM ${schema}.attempts WHERE endpoint_id = $1 FOR UPDATE`, [
    endpointId,
  ]);
  const deleting = store.deleteEndpoint(app.id, endpointId);
  const deletingPid = await waitForPid(watch, BLOCKED_BY, [adminPid]);
  // The deletion waits before the endpoint's records and deliveries, holding the records: the
  // replay waits for it.
  const replayed = store.enqueueReplay({
    deadLetterId: record.id,
    deliveryId: newId("dlv", now),
    now,
    actor: "ops",
    note: null,
    abandonAfter: null,
  });
  await waitForPid(watch, BLOCKED_BY, [deletingPid]);
  await admin.query("COMMIT");
  await deleting;
  expect(await replayed).toEqual({ ok: false, record: null });

  const left = await admin.query(`SELECT id FROM ${schema}.deliveries WHERE endpoint_id = $1`, [
    endpointId,
  ]);
  expect(left.rows).toEqual([]);
  expect(await store.getDeadLetter(record.id)).toBeNull();
  const history = await admin.query(
    `SELECT action FROM ${schema}.dead_letter_events WHERE dead_letter_id = $1`,
    [record.id],
  );
  expect(history.rows).toEqual([]);
});
