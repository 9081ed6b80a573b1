/**
 * Retention on PostgreSQL against requests that begin expired idempotency keys again while
 * retention deletes them. The delete picks a batch of expired keys, then checks the expiry again
 * on each row it takes, and leaves a key begun again meanwhile. When it leaves every key of the
 * batch so, the batch deletes nothing, and the run must go on: the expired keys past them are
 * still to be pruned. It ended there, as if nothing were left, and they waited for the next
 * hourly run.
 *
 * The order is forced with the row lock of the key begun again held on an admin connection (as
 * beginIdempotent holds it) until retention waits on it.
 */
import { expect, it } from "vitest";
import { RetentionPruner } from "../../src/dlq/retention.js";
import { HOUR, SECOND, T0 } from "./behaviour/fixtures.js";
import { FakeClock } from "../support/fake-clock.js";
import { useCleanup } from "../support/cleanup.js";
import { adminQuery, aStoreToRace, BLOCKED_BY, waitForPid } from "../support/postgres.js";

const SCOPE = "admin:POST /api/v1/app/acme/msg";

const cleanup = useCleanup();

it("a batch whose keys were all begun again as it deleted them does not end the run", async () => {
  const { schema, store, admin, watch, adminPid } = await aStoreToRace(cleanup);

  // Two answered keys; the first, older, is the first a batch of one picks.
  for (const [key, at] of [
    ["order-1", T0],
    ["order-2", T0 + SECOND],
  ] as const) {
    const held = { scope: SCOPE, key, owner: key, fingerprint: "f" };
    expect(
      await store.beginIdempotent({ ...held, now: at, lockMs: 60 * SECOND, ttlMs: 24 * HOUR }),
    ).toEqual({ kind: "new" });
    await store.finishIdempotent(held, 202, "{}");
  }

  // A day and more later both have expired; a request begins the first again, not yet committed.
  const now = T0 + 25 * HOUR;
  await admin.query("BEGIN");
  await admin.query(
    `UPDATE ${schema}.idempotency_keys SET owner = 'again', state = 'started', status = NULL,
      body = NULL, locked_until = $2, expires_at = $3 WHERE scope = $1 AND key = 'order-1'`,
    [SCOPE, now + 60 * SECOND, now + 24 * HOUR],
  );
  const pruner = new RetentionPruner(store, new FakeClock(now), {
    retentionMs: 30 * 24 * HOUR,
    batchSize: 1,
  });
  const run = pruner.runOnce();
  await waitForPid(watch, BLOCKED_BY, [adminPid]);
  await admin.query("COMMIT");

  expect((await run).idempotencyKeys).toBe(1);
  const left = await adminQuery(`SELECT key FROM ${schema}.idempotency_keys ORDER BY key`);
  expect(left.map((r) => r.key)).toEqual(["order-1"]);
});
