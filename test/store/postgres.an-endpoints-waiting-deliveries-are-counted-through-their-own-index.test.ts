/**
 * The endpoint page's "Waiting now" (the stats' `pendingNow`) counts the endpoint's pending
 * deliveries through the index of pending deliveries by endpoint alone, bounded by its limit:
 * through the endpoint's index of every delivery it would walk the endpoint's whole history, and
 * through the shared index of due rows every other endpoint's backlog. The endpoint is given a
 * long delivered history and another endpoint a backlog (analysed: their statistics are what the
 * planner goes by), and both a custom plan and the generic one PostgreSQL may settle on for a
 * statement run again and again are checked, with sequential scans off.
 */
import { expect, it } from "vitest";
import { useCleanup } from "../support/cleanup.js";
import { aSharedStore, freshSchemaName } from "../support/postgres.js";
import { planningClient, sentStatementsRecorded, type PlanNode } from "./recorded-statements.js";
import { seedApp, T0 } from "./behaviour/fixtures.js";

const cleanup = useCleanup();

it("counts an endpoint's waiting deliveries through the index of pending ones, bounded", async () => {
  const schema = freshSchemaName();
  const store = await aSharedStore(cleanup, schema);
  const { app, endpoints } = await seedApp(store, [{}, {}]);
  const [ep, busy] = endpoints.map((e) => e.id) as [string, string];
  const client = await planningClient(cleanup, schema);
  // 20,000 delivered to the endpoint, 20,000 waiting for the other, 5 waiting for the endpoint.
  await client.query(
    `INSERT INTO messages (id, app_id, event_type, payload, created_at)
     SELECT 'msg_w' || lpad(g::text, 6, '0'), $1, 'a', '\\x7b7d', $2::bigint
     FROM generate_series(1, 40005) g`,
    [app.id, T0],
  );
  await client.query(
    `INSERT INTO deliveries
       (id, app_id, message_id, endpoint_id, state, origin, next_attempt_at, created_at)
     SELECT 'dlv_w' || lpad(g::text, 6, '0'), $1, 'msg_w' || lpad(g::text, 6, '0'),
       CASE WHEN g <= 20000 OR g > 40000 THEN $2 ELSE $3 END,
       CASE WHEN g <= 20000 THEN 'succeeded' ELSE 'pending' END, 'message',
       CASE WHEN g <= 20000 THEN NULL ELSE $4::bigint + g END, $4::bigint
     FROM generate_series(1, 40005) g`,
    [app.id, ep, busy, T0],
  );
  await client.query("ANALYZE messages; ANALYZE deliveries");

  const sent = sentStatementsRecorded(cleanup);
  expect(await store.countWaitingDeliveries(ep, 10_000)).toBe(5);
  expect(await store.countWaitingDeliveries(busy, 10_000)).toBe(10_000);
  sent.stop();
  const texts = [...sent.statements.keys()];
  const count = texts.filter((text) => /FROM deliveries/.test(text));
  const settings = texts.filter((text) => /^SET LOCAL/.test(text));
  expect(count).toHaveLength(1);
  expect(settings).toHaveLength(1);
  expect(count[0]).toMatch(/LIMIT \$2\s*\)/);

  for (const mode of ["force_custom_plan", "force_generic_plan"]) {
    for (const endpoint of [ep, busy]) {
      // As the store reads it: in a transaction of its own, with its settings.
      await client.query("BEGIN");
      await client.query(settings[0]!);
      await client.query(`SET LOCAL plan_cache_mode = ${mode}`);
      await client.query("DEALLOCATE ALL");
      await client.query(`PREPARE waiting AS ${count[0]!}`);
      const { rows } = await client.query<{ "QUERY PLAN": { Plan: PlanNode }[] }>(
        `EXPLAIN (FORMAT JSON) EXECUTE waiting('{${endpoint}}', 10000)`,
      );
      await client.query("ROLLBACK");
      const nodes: PlanNode[] = [];
      const walk = (n: PlanNode): void => {
        nodes.push(n);
        (n.Plans ?? []).forEach(walk);
      };
      walk(rows[0]!["QUERY PLAN"][0]!.Plan);
      const reads = nodes.filter((n) => n["Relation Name"] === "deliveries");
      const why = `${mode}, ${endpoint === ep ? "history" : "backlog"}`;
      expect(
        reads.map((n) => [n["Index Name"], n["Index Cond"]]),
        why,
      ).toEqual([["deliveries_pending_by_endpoint", expect.stringMatching(/^\(endpoint_id = /)]]);
      expect(nodes[1]?.["Node Type"], why).toBe("Limit");
    }
  }
});
