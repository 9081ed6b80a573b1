/**
 * A claim for one endpoint reads that endpoint's rows through an index of its own, never the
 * shared index of due rows: its cost follows the batch, not the other endpoints' backlogs. After
 * a few runs PostgreSQL may plan a prepared statement once for every endpoint (a generic plan);
 * when the claim matched its endpoint by equality, such a plan walked deliveries_due filtered by
 * endpoint, so a full endpoint's refill read past every other endpoint's row due before its own,
 * here 20,000. Both kinds of plan are checked.
 */
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DELIVERIES } from "../../src/store/postgres/statements.js";
import type { PostgresStore } from "../../src/store/postgres/store.js";
import { useCleanup } from "../support/cleanup.js";
import {
  aSharedStore,
  adminQuery,
  freshSchemaName,
  TEST_DATABASE_URL,
} from "../support/postgres.js";
import { seedApp, T0 } from "./behaviour/fixtures.js";

const BUSY_BACKLOG = 20_000;
const QUIET = 10;
/** The indexes that hold an endpoint's rows (pending only, or all) together. */
const BY_ENDPOINT = ["deliveries_pending_by_endpoint", "deliveries_by_endpoint"];

describe("postgres claims by endpoint", () => {
  const cleanup = useCleanup();
  let schema: string;
  let store: PostgresStore;
  let quiet: string;
  let client: pg.Client;

  beforeEach(async () => {
    schema = freshSchemaName();
    store = await aSharedStore(cleanup, schema);
    const { app, endpoints } = await seedApp(store, [{}, {}]);
    const [busy, other] = endpoints.map((e) => e.id);
    quiet = other!;
    // The busy endpoint's rows all fall due before the quiet one's, which come last.
    await adminQuery(
      `INSERT INTO ${schema}.messages (id, app_id, event_type, payload, created_at)
       SELECT 'msg_walk' || lpad(g::text, 6, '0'), $1, 'invoice.paid', '\\x7b7d', $2::bigint
       FROM generate_series(1, $3) g`,
      [app.id, T0, BUSY_BACKLOG + QUIET],
    );
    await adminQuery(
      `INSERT INTO ${schema}.deliveries
         (id, app_id, message_id, endpoint_id, state, origin, next_attempt_at, created_at)
       SELECT 'dlv_walk' || lpad(g::text, 6, '0'), $1, 'msg_walk' || lpad(g::text, 6, '0'),
         CASE WHEN g > $4 THEN $3 ELSE $2 END, 'pending', 'message', $5::bigint + g, $5::bigint
       FROM generate_series(1, $6) g`,
      [app.id, busy, quiet, BUSY_BACKLOG, T0, BUSY_BACKLOG + QUIET],
    );
    await adminQuery(`ANALYZE ${schema}.deliveries`);
    client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    await client.query(`SET search_path = ${schema}`);
  });

  afterEach(async () => {
    await client.end();
  });

  /** The indexes a plan of `statement` reads, with these parameters (SQL literals). */
  async function indexesRead(
    statement: { text: string },
    literals: string[],
    mode: "force_generic_plan" | "force_custom_plan",
  ): Promise<string[]> {
    await client.query(`SET plan_cache_mode = ${mode}`);
    await client.query("DEALLOCATE ALL");
    await client.query(`PREPARE walk AS ${statement.text}`);
    // EXPLAIN without ANALYZE: the plan only, nothing claimed.
    const { rows } = await client.query<{ "QUERY PLAN": string }>(
      `EXPLAIN EXECUTE walk(${literals.join(", ")})`,
    );
    const plan = rows.map((r) => r["QUERY PLAN"]).join("\n");
    return [...plan.matchAll(/using (\w+) on deliveries/g)].map((m) => m[1]!);
  }

  const due = T0 + BUSY_BACKLOG + QUIET;
  /** Both claims for one endpoint, with their parameters as SQL literals (the worker's last). */
  const claims = () => [
    {
      who: "a single process's claim",
      statement: DELIVERIES.claimForEndpoint,
      literals: [`${due}`, `'{${quiet}}'`, "256", `${due + 60_000}`],
    },
    {
      who: "a worker's claim",
      statement: DELIVERIES.claimOwnedForEndpoint,
      literals: [
        `${due}`,
        `'{${quiet}}'`,
        "256",
        `${due + 60_000}`,
        "'wkr_walk'",
        `${due - 10_000}`,
      ],
    },
  ];

  for (const mode of ["force_generic_plan", "force_custom_plan"] as const) {
    it(`a claim for one endpoint reads only that endpoint's own rows (${mode})`, async () => {
      for (const { who, statement, literals } of claims()) {
        const read = await indexesRead(statement, literals, mode);
        expect(read, who).not.toContain("deliveries_due");
        expect(
          read.some((i) => BY_ENDPOINT.includes(i)),
          who,
        ).toBe(true);
      }
    });
  }

  it("takes the endpoint's rows in due order, and only its own", async () => {
    const claimed = await store.claimDue({
      now: due,
      limit: 256,
      excludeEndpoints: [],
      leaseUntil: due + 60_000,
      endpointId: quiet,
    });
    expect(claimed.map((d) => d.id)).toEqual(
      Array.from(
        { length: QUIET },
        (_, i) => `dlv_walk${String(BUSY_BACKLOG + 1 + i).padStart(6, "0")}`,
      ),
    );
  });
});
