/**
 * PostgreSQL counts an endpoint's messages by state (its stats, on the endpoint pages every 10 s)
 * from the window's messages, through an index bounded by the window, then each message's own
 * deliveries; never through the endpoint's deliveries, which walked every delivery the endpoint
 * ever had whatever the window, as PostgreSQL chose to once the window held many messages. The
 * endpoint is given a long history and a busy window (rows written here: their statistics are
 * what matter to the planner, not how they were made), and the plan is explained with the values
 * sent and sequential scans off, so it shows whether an index bounds the read.
 */
import { expect, it } from "vitest";
import { useCleanup } from "../support/cleanup.js";
import { aSharedStore, freshSchemaName } from "../support/postgres.js";
import { postgresPlan, sentStatementsRecorded, planningClient } from "./recorded-statements.js";
import type pg from "pg";
import { firstIdAt } from "../../src/ids.js";
import { MINUTE, SECOND } from "./behaviour/fixtures.js";
import { anEndpointWithHistory, SINCE } from "./recent-reads.js";

const cleanup = useCleanup();

it("counts an endpoint's messages of a window from the window's messages on", async () => {
  const schema = freshSchemaName();
  const store = await aSharedStore(cleanup, schema);
  const ids = await anEndpointWithHistory(store);
  const client = await planningClient(cleanup, schema);
  // A busy endpoint: a long history before the window, and many messages in it.
  await delivered(client, ids, SINCE - 30_000 * SECOND, 30_000);
  await delivered(client, ids, SINCE + 2 * MINUTE, 2_000);
  const sent = sentStatementsRecorded(cleanup);
  const states = await store.endpointMessageStates({ ...ids, since: SINCE });
  expect(states).toEqual({ succeeded: 3 + 2_000, pending: 0, inflight: 0, dead: 0 });
  sent.stop();

  const asked = [...sent.statements].filter(([text]) => /GROUP BY (d\.)?state\s*$/.test(text));
  expect(asked).toHaveLength(1);
  const [text, values] = asked[0]!;
  const nodes = await postgresPlan(client, text, values);
  const read = (table: string) =>
    nodes
      .filter((n) => n["Relation Name"] === table)
      .map((n) => [n["Index Name"], n["Index Cond"] ?? n["Recheck Cond"]]);
  // The messages from the window's first id on (the application's or all), or from its start.
  expect(read("messages")).toEqual([
    expect.arrayContaining([
      expect.stringMatching(/^messages_(pkey|by_app|by_age)$/),
      expect.stringMatching(/\(id >= |\(created_at >= /),
    ]),
  ]);
  // Each one's own deliveries, for its latest to the endpoint.
  expect(read("deliveries")).toEqual([
    ["deliveries_by_message", expect.stringMatching(/^\(message_id = m\.id\)$/)],
  ]);
});

/**
 * `n` messages to the endpoint, delivered, one a second from `from`, each with an id of its time
 * (as the API makes them, not newId's: see recent-reads.ts); then ANALYZE.
 */
async function delivered(
  client: pg.Client,
  ids: { appId: string; endpointId: string },
  from: number,
  n: number,
): Promise<void> {
  const at = Array.from({ length: n }, (_, i) => from + i * 1000);
  const id = (prefix: "msg" | "dlv", t: number, i: number) => {
    const first = firstIdAt(prefix, t);
    return first.slice(0, -8) + String(i).padStart(8, "0");
  };
  await client.query(
    `INSERT INTO messages (id, app_id, event_type, payload, created_at)
     SELECT id, $1, 'old', '\\x7b7d', at FROM unnest($2::text[], $3::bigint[]) AS r(id, at)`,
    [ids.appId, at.map((t, i) => id("msg", t, i)), at],
  );
  await client.query(
    `INSERT INTO deliveries (id, app_id, message_id, endpoint_id, state, origin, created_at)
     SELECT d, $1, m, $2, 'succeeded', 'message', at
     FROM unnest($3::text[], $4::text[], $5::bigint[]) AS r(d, m, at)`,
    [
      ids.appId,
      ids.endpointId,
      at.map((t, i) => id("dlv", t, i)),
      at.map((t, i) => id("msg", t, i)),
      at,
    ],
  );
  await client.query("ANALYZE messages; ANALYZE deliveries");
}
