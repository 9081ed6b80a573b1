/**
 * Retention on PostgreSQL against a request reusing an expired idempotency key. Retention picks
 * the expired keys, then deletes them; a request with one of those keys begins it again (new
 * expiry, state started) under a row lock. Retention must leave the key begun again: deleted, the
 * request's answer would not be kept, and a retry with the same key would run a second time.
 * The order is forced with the row lock held on an admin connection.
 */
import { expect, it } from "vitest";
import { HOUR, SECOND, T0 } from "./behaviour/fixtures.js";
import { useCleanup } from "../support/cleanup.js";
import { aStoreToRace, BLOCKED_BY, waitForPid } from "../support/postgres.js";

const cleanup = useCleanup();

it("a key begun again while retention deletes the expired ones stays, with its new expiry", async () => {
  const { schema, store, admin, watch, adminPid } = await aStoreToRace(cleanup);
  const key = {
    scope: "admin:POST /api/v1/app/acme/msg",
    key: "order-42",
    owner: "first",
    fingerprint: "f",
  };
  const begin = (now: number) =>
    store.beginIdempotent({ ...key, now, lockMs: 60 * SECOND, ttlMs: 24 * HOUR });
  expect(await begin(T0)).toEqual({ kind: "new" });
  await store.finishIdempotent(key, 202, '{"id":"msg_first"}');

  // A day and more later the key has expired; a request uses it again, its beginning not yet
  // committed (as beginIdempotent writes it).
  const now = T0 + 25 * HOUR;
  await admin.query("BEGIN");
  await admin.query(
    `UPDATE ${schema}.idempotency_keys SET owner = 'again', fingerprint = $3, state = 'started',
      status = NULL, body = NULL, locked_until = $4, expires_at = $5 WHERE scope = $1 AND key = $2`,
    [key.scope, key.key, key.fingerprint, now + 60 * SECOND, now + 24 * HOUR],
  );
  const pruning = store.pruneExpired({ now, retentionMs: 30 * 24 * HOUR, batchSize: 10 });
  await waitForPid(watch, BLOCKED_BY, [adminPid]);
  await admin.query("COMMIT");

  expect((await pruning).idempotencyKeys).toBe(0);
  // The request under way holds the key: a repeat meanwhile is told so, not run again.
  expect(await begin(now + SECOND)).toEqual({ kind: "in-progress" });
});
