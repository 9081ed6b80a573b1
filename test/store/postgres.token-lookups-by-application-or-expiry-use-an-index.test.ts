/**
 * PostgreSQL's statements that pick API tokens by application (its list, expire-all's pages, the
 * application's deletion) or by expiry (retention) read them through an index on that column.
 * Each statement the store sends is recorded, and those naming either column are explained with
 * the values they were sent with and sequential scans off, so that the plan shows an index
 * whenever one can serve. Before migration 14 none could: the list walked the primary key,
 * filtering every token there was by application, and the others read the table whole.
 */
import pg from "pg";
import { expect, it, vi } from "vitest";
import { useCleanup } from "../support/cleanup.js";
import { aSharedStore, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { lookUpTokensEveryWay, picksTokens } from "./token-lookups.js";

const cleanup = useCleanup();

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Cond"?: string;
  "Recheck Cond"?: string;
  Plans?: PlanNode[];
}

it("reads an application's tokens and expired ones through an index", async () => {
  const sent = new Map<string, unknown[]>();
  const query = pg.Client.prototype.query;
  const spy = vi.spyOn(pg.Client.prototype, "query").mockImplementation(function (
    this: pg.Client,
    ...args: unknown[]
  ) {
    const [first, second] = args;
    const config = typeof first === "string" ? { text: first, values: second } : first;
    const { text, values } = config as { text?: string; values?: unknown[] };
    if (text) sent.set(text, Array.isArray(values) ? values : []);
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query);
  cleanup.push(async () => spy.mockRestore());
  const schema = freshSchemaName();
  const store = await aSharedStore(cleanup, schema);
  await lookUpTokensEveryWay(store);
  spy.mockRestore();

  const asked = [...sent].filter(([text]) => picksTokens(text));
  // Three lists (a first page, a next one, the revoked too), the prune and the deletion.
  expect(asked.length).toBeGreaterThanOrEqual(5);
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  cleanup.push(() => client.end());
  await client.query(`SET search_path = ${schema}`);
  await client.query("SET enable_seqscan = off");
  const unsearched: { sql: string; reads: string[] }[] = [];
  for (const [text, values] of asked) {
    const { rows } = await client.query<{ "QUERY PLAN": { Plan: PlanNode }[] }>(
      `EXPLAIN (FORMAT JSON) ${text}`,
      values,
    );
    const reads = readsOf(rows[0]!["QUERY PLAN"][0]!.Plan);
    if (reads.length) unsearched.push({ sql: text.replace(/\s+/g, " "), reads });
  }
  expect(unsearched).toEqual([]);
});

/**
 * The plan's reads of api_tokens that do not look its rows up by application, by expiry or by
 * id (the row a search by expiry found), as "node type: condition".
 */
function readsOf(node: PlanNode): string[] {
  const cond = node["Index Cond"] ?? node["Recheck Cond"] ?? "";
  const own =
    node["Relation Name"] === "api_tokens" &&
    node["Node Type"] !== "ModifyTable" &&
    !/\b(app_id|expires_at)\b|\(id = /.test(cond)
      ? [`${node["Node Type"]}: ${cond || "(none)"}`]
      : [];
  return [...own, ...(node.Plans ?? []).flatMap(readsOf)];
}
