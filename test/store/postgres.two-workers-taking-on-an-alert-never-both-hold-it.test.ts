/**
 * Two workers taking on the same left-behind alert on PostgreSQL: worker B joins and takes it
 * while worker A's adoption is running, A's snapshot taken before B existed. A must not take the
 * alert from B (it cannot see B in `workers`, so B would look like a worker that left): B keeps
 * it, and A gets nothing, so the alert has one evaluator and its end is announced once. The order
 * is forced with B's transaction held open on an admin connection.
 */
import { expect, it } from "vitest";
import { anAlert, HOUR, saveAlerts, T0 } from "./behaviour/fixtures.js";
import { useCleanup } from "../support/cleanup.js";
import { aStoreToRace, BLOCKED_BY, waitForPid } from "../support/postgres.js";

const NOW = T0 + HOUR;

const cleanup = useCleanup();

it("an alert taken on by a worker that joined meanwhile stays with that worker", async () => {
  const { schema, store, admin, watch, adminPid } = await aStoreToRace(cleanup);
  await store.coordination!.register({ id: "wkr_a", role: "worker", host: "test", now: NOW });
  await saveAlerts(store, "wkr_gone", [anAlert("alrt_1")]);

  // B joins and takes the alert, not yet committed.
  await admin.query("BEGIN");
  await admin.query(
    `INSERT INTO ${schema}.workers (id, role, host, started_at, heartbeat_at)
     VALUES ('wkr_b', 'worker', 'test', $1, $1)`,
    [NOW],
  );
  await admin.query(`UPDATE ${schema}.alerts SET evaluated_by = 'wkr_b' WHERE id = 'alrt_1'`);
  const adopting = store.adoptAlerts("wkr_a");
  await waitForPid(watch, BLOCKED_BY, [adminPid]);
  await admin.query("COMMIT");

  expect(await adopting).toEqual([]);
  const held = await admin.query(`SELECT evaluated_by FROM ${schema}.alerts`);
  expect(held.rows).toEqual([{ evaluated_by: "wkr_b" }]);
});
