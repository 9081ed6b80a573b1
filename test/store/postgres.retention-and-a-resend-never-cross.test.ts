/**
 * Retention on PostgreSQL against a manual resend of the same old message. Retention picks old
 * messages with nothing left to deliver, then deletes them with their deliveries; a resend adds a
 * delivery due now. Either the resend is written and the message stays, or retention took the
 * message and the resend writes nothing (the API answers 404): never a resend acknowledged and
 * then deleted, nor a delivery whose message is gone. Both orders are forced with row locks held
 * on an admin connection.
 */
import { expect, it } from "vitest";
import { newId } from "../../src/ids.js";
import type { Delivery } from "../../src/domain/types.js";
import type { PostgresStore } from "../../src/store/postgres/store.js";
import { accept, claimAll, HOUR, seedApp, succeeded, T0 } from "./behaviour/fixtures.js";
import { useCleanup } from "../support/cleanup.js";
import { aStoreToRace, BLOCKED_BY, waitForPid } from "../support/postgres.js";

const RETENTION = 30 * 24 * HOUR;
const NOW = T0 + RETENTION + HOUR;

const cleanup = useCleanup();

/** A store with one old message, delivered, and two spare connections. */
async function setUp() {
  const { schema, store, admin, watch, adminPid } = await aStoreToRace(cleanup);
  const { app, endpoints } = await seedApp(store);
  const { message } = await accept(store, app.id, { now: T0 });
  await store.recordAttempts((await claimAll(store, T0)).map((d) => succeeded(d, T0)));
  const resend = (s: PostgresStore): Promise<Delivery | null> =>
    s.enqueueResend({
      id: newId("dlv", NOW),
      appId: app.id,
      messageId: message.id,
      endpointId: endpoints[0]!.id,
      now: NOW,
    });
  const prune = () => store.pruneExpired({ now: NOW, retentionMs: RETENTION, batchSize: 8 });
  return { schema, store, admin, watch, adminPid, message, resend, prune };
}

it("a resend asked for while retention takes the message writes nothing", async () => {
  const { schema, store, admin, watch, adminPid, message, resend, prune } = await setUp();
  // Hold the message's attempt: retention stops there, the message already locked by it.
  await admin.query("BEGIN");
  const held = await admin.query(
    `SELECT id FROM ${schema}.attempts WHERE message_id = $1 FOR UPDATE`,
    [message.id],
  );
  expect(held.rowCount).toBe(1);
  const pruning = prune();
  const retentionPid = await waitForPid(watch, BLOCKED_BY, [adminPid]);

  const resending = resend(store);
  await waitForPid(watch, BLOCKED_BY, [retentionPid]);
  await admin.query("COMMIT");
  expect((await pruning).messages).toBe(1);
  expect(await resending).toBeNull();
  expect(await store.findMessage(message.appId, message.id)).toBeNull();
  expect(await store.listDeliveries(message.id)).toEqual([]);
});

it("retention passes over a message whose resend is being written, and keeps it after", async () => {
  const { schema, store, admin, message, prune } = await setUp();
  // A resend in the middle of being written: the message share-locked, the delivery not committed.
  await admin.query("BEGIN");
  await admin.query(`SELECT id FROM ${schema}.messages WHERE id = $1 FOR KEY SHARE`, [message.id]);
  const [ep] = (await admin.query(`SELECT endpoint_id FROM ${schema}.deliveries LIMIT 1`)).rows;
  await admin.query(
    `INSERT INTO ${schema}.deliveries
      (id, app_id, message_id, endpoint_id, state, origin, next_attempt_at, created_at)
      VALUES ($1, $2, $3, $4, 'pending', 'resend', $5, $5)`,
    [newId("dlv", NOW), message.appId, message.id, ep.endpoint_id, NOW],
  );
  expect((await prune()).messages).toBe(0);

  await admin.query("COMMIT");
  expect((await prune()).messages).toBe(0);
  expect(await store.findMessage(message.appId, message.id)).not.toBeNull();
  expect((await store.listDeliveries(message.id)).map((d) => d.state).sort()).toEqual([
    "pending",
    "succeeded",
  ]);
});
