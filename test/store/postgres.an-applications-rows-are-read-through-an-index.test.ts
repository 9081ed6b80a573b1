/**
 * PostgreSQL's statements that pick an application's rows (its tokens, its history as it is
 * deleted) or expired tokens read them through an index on what they pick by. Each statement
 * the store sends is recorded, and those naming an application or an expiry are explained with
 * the values they were sent with and sequential scans off, so that the plan shows an index
 * wherever one can serve. Deleting an application read every attempt and delivery there was,
 * and every call on tokens every token (the list walking the primary key), before migration 14.
 */
import pg from "pg";
import { expect, it, vi } from "vitest";
import { useCleanup, type Cleanup } from "../support/cleanup.js";
import { aSharedStore, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { anApplicationWithHistory, picksRows, readThenDelete } from "./application-reads.js";

const cleanup = useCleanup();

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Cond"?: string;
  "Recheck Cond"?: string;
  Plans?: PlanNode[];
}

it("reads an application's rows and expired tokens through an index", async () => {
  const schema = freshSchemaName();
  const store = await aSharedStore(cleanup, schema);
  const app = await anApplicationWithHistory(store);
  const sent = sentStatementsRecorded(cleanup);
  await readThenDelete(store, app);
  sent.stop();

  const asked = [...sent.statements].filter(([text]) => picksRows(text));
  expect(asked.some(([text]) => /DELETE FROM attempts/.test(text))).toBe(true);
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  cleanup.push(() => client.end());
  await client.query(`SET search_path = ${schema}`);
  await client.query("SET enable_seqscan = off");
  const walking: { sql: string; walks: string[] }[] = [];
  for (const [text, values] of asked) {
    const { rows } = await client.query<{ "QUERY PLAN": { Plan: PlanNode }[] }>(
      `EXPLAIN (FORMAT JSON) ${text}`,
      values,
    );
    const walks = walksOf(rows[0]!["QUERY PLAN"][0]!.Plan);
    if (walks.length) walking.push({ sql: text.replace(/\s+/g, " "), walks });
  }
  expect(walking).toEqual([]);
});

/** Records the text and values of every statement sent until `stop`. */
function sentStatementsRecorded(cleanup: Cleanup): {
  statements: Map<string, unknown[]>;
  stop(): void;
} {
  const statements = new Map<string, unknown[]>();
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  const spy = vi.spyOn(pg.Client.prototype, "query").mockImplementation(function (
    this: pg.Client,
    ...args: unknown[]
  ) {
    const [first, second] = args;
    const config = typeof first === "string" ? { text: first, values: second } : first;
    const { text, values } = config as { text?: string; values?: unknown[] };
    if (text) statements.set(text, Array.isArray(values) ? values : []);
    return query.apply(this, args);
  } as never);
  const stop = () => spy.mockRestore();
  cleanup.push(async () => stop());
  return { statements, stop };
}

/**
 * The plan's reads of a table that look nothing up (no index condition: the table, or an index
 * of it, read end to end), and reads of api_tokens by id alone, which walk every later token of
 * every application; as "node type on table: condition".
 */
function walksOf(node: PlanNode): string[] {
  const table = node["Relation Name"];
  const cond = node["Index Cond"] ?? node["Recheck Cond"] ?? "";
  const walks =
    table !== undefined &&
    node["Node Type"] !== "ModifyTable" &&
    (!cond || (table === "api_tokens" && !/\b(app_id|expires_at)\b|\(id = /.test(cond)));
  return [
    ...(walks ? [`${node["Node Type"]} on ${table}: ${cond || "(none)"}`] : []),
    ...(node.Plans ?? []).flatMap(walksOf),
  ];
}
