/**
 * On PostgreSQL a message accepted while one of its endpoints is being deleted reads the endpoint
 * before the deletion commits and writes its delivery after the deletion took the endpoint's
 * deliveries: a delivery to no endpoint. Accepting does not lock endpoints (it would on every
 * message); the engine, claiming such a delivery and finding no endpoint, clears what is left
 * with `clearDeletedEndpoint`. The race is forced: an admin connection holds a table the
 * deletion writes after the deliveries, so the deletion waits there while the message is accepted.
 */
import { expect, it } from "vitest";
import { accept, seedApp } from "./behaviour/fixtures.js";
import { useCleanup } from "../support/cleanup.js";
import { aStoreToRace, BLOCKED_BY, waitForPid } from "../support/postgres.js";

const cleanup = useCleanup();

it("a delivery written as its endpoint was deleted is removed by clearDeletedEndpoint", async () => {
  const { schema, store, admin, watch, adminPid } = await aStoreToRace(cleanup);
  const { app, endpoints } = await seedApp(store, [{}, {}]);
  const [gone, kept] = endpoints.map((e) => e.id);

  await admin.query("BEGIN");
  await admin.query(`LOCK TABLE ${schema}.circuit_transitions IN ACCESS EXCLUSIVE MODE`);
  const deleting = store.deleteEndpoint(app.id, gone!);
  await waitForPid(watch, BLOCKED_BY, [adminPid]);
  // The deletion has taken the endpoint's deliveries and waits; the endpoint is still there.
  const { message } = await accept(store, app.id);
  await admin.query("COMMIT");
  await deleting;

  const left = () =>
    admin.query(`SELECT endpoint_id FROM ${schema}.deliveries WHERE message_id = $1`, [message.id]);
  expect((await left()).rows.map((r) => r.endpoint_id).sort()).toEqual([gone, kept].sort());
  expect(await store.getEndpoint(gone!)).toBeNull();

  await store.clearDeletedEndpoint(gone!);
  await store.clearDeletedEndpoint(kept!);
  expect((await left()).rows.map((r) => r.endpoint_id)).toEqual([kept]);
});
