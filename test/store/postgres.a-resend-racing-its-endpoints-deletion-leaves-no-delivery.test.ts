/**
 * A resend written while its endpoint is being deleted, on PostgreSQL, leaves no delivery behind:
 * either the deletion waits for it and takes its row along, or it finds the endpoint gone and
 * writes nothing. (Checking the endpoint in the resend's own snapshot is not enough: a deletion
 * that commits while the resend waits for its message would leave a pending delivery to no
 * endpoint, claimed and dropped by the engine on every start and never finished, which keeps its
 * message from retention for good.) The race is forced: an admin connection holds the message,
 * so the resend waits, its snapshot taken, while the deletion starts.
 */
import { expect, it } from "vitest";
import { newId } from "../../src/ids.js";
import { accept, HOUR, seedApp, T0 } from "./behaviour/fixtures.js";
import { useCleanup } from "../support/cleanup.js";
import { aStoreToRace, BLOCKED_BY, waitForPid } from "../support/postgres.js";

const cleanup = useCleanup();

it("a resend queued while its endpoint is being deleted goes with the endpoint", async () => {
  const { schema, store, admin, watch, adminPid } = await aStoreToRace(cleanup);
  const { app, endpoints } = await seedApp(store);
  const endpointId = endpoints[0]!.id;
  const { message } = await accept(store, app.id);
  const now = T0 + HOUR;

  await admin.query("BEGIN");
  await admin.query(`SELECT 1 FROM ${schema}.messages WHERE id = $1 FOR UPDATE`, [message.id]);
  const resending = store.enqueueResend({
    id: newId("dlv", now),
    appId: app.id,
    messageId: message.id,
    endpointId,
    now,
  });
  const resendPid = await waitForPid(watch, BLOCKED_BY, [adminPid]);
  // The resend holds the endpoint and waits for the message: the deletion waits for the resend.
  const deleting = store.deleteEndpoint(app.id, endpointId);
  await waitForPid(watch, BLOCKED_BY, [resendPid]);
  await admin.query("COMMIT");
  await Promise.all([resending, deleting]);

  const left = await admin.query(`SELECT id FROM ${schema}.deliveries WHERE endpoint_id = $1`, [
    endpointId,
  ]);
  expect(left.rows).toEqual([]);
  expect(await store.getEndpoint(endpointId)).toBeNull();
});
