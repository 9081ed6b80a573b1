/**
 * Retention on PostgreSQL against a replay made while it runs. Retention picks closed records,
 * then deletes them; a replay committed in between moves a record back to `replaying`, and must
 * not be deleted with its new history (nor leave a replay delivery whose record is gone). The
 * race is forced: an admin connection holds a lock on one of the record's history rows, so
 * retention stops after picking its records, and the replay is asked for while it waits.
 */
import { expect, it } from "vitest";
import { newId } from "../../src/ids.js";
import type { ReplayEnqueued } from "../../src/store/port.js";
import { deadLetter } from "./behaviour/dlq-fixtures.js";
import { HOUR, seedApp, T0 } from "./behaviour/fixtures.js";
import { useCleanup } from "../support/cleanup.js";
import { aStoreToRace, BLOCKED_BY, waitForPid } from "../support/postgres.js";

const RETENTION = 30 * 24 * HOUR;

const cleanup = useCleanup();

it("a record replayed while retention runs is never deleted after the replay was queued", async () => {
  const { schema, store, admin, watch, adminPid } = await aStoreToRace(cleanup);

  const { app } = await seedApp(store);
  const record = await deadLetter(store, app.id);
  await store.resolveDeadLetter({ id: record.id, actor: "ops", note: "n", now: T0 + HOUR });

  // Hold one of the record's history rows: retention stops at deleting the history.
  await admin.query("BEGIN");
  const held = await admin.query(
    `SELECT seq FROM ${schema}.dead_letter_events WHERE dead_letter_id = $1 LIMIT 1 FOR UPDATE`,
    [record.id],
  );
  expect(held.rowCount).toBe(1);

  const now = T0 + HOUR + RETENTION + 1;
  const pruning = store.pruneExpired({ now, retentionMs: RETENTION, batchSize: 10 });
  const retentionPid = await waitForPid(watch, BLOCKED_BY, [adminPid]);

  const deliveryId = newId("dlv", now);
  const replay: Promise<ReplayEnqueued> = store.enqueueReplay({
    deadLetterId: record.id,
    deliveryId,
    now,
    actor: "ops",
    note: "receiver fixed",
    abandonAfter: null,
  });
  // The replay either commits at once or waits behind retention; either way, then let go.
  await Promise.race([replay, waitForPid(watch, BLOCKED_BY, [retentionPid])]);
  await admin.query("COMMIT");
  await pruning;
  const queued = await replay;

  const kept = await store.getDeadLetterRecord(record.id);
  if (queued.ok) {
    // The replay won: the record, its replay delivery and its whole history stay.
    expect(kept?.state).toBe("replaying");
    expect(kept?.history.map((h) => h.action)).toContain("replay_requested");
    expect(kept?.history.map((h) => h.action)).toContain("resolved");
    expect(await store.getDelivery(deliveryId)).not.toBeNull();
  } else {
    // Retention won: the replay was refused, not acknowledged and then deleted.
    expect(queued.record).toBeNull();
    expect(kept).toBeNull();
    expect(await store.getDelivery(deliveryId)).toBeNull();
  }
});
