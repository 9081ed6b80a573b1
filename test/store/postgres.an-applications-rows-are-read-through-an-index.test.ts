/**
 * PostgreSQL's statements that pick an application's rows (its tokens, its history as it is
 * deleted) or expired tokens read them through an index on what they pick by. Each statement
 * the store sends is recorded, and those naming an application or an expiry are explained with
 * the values they were sent with and sequential scans off, so that the plan shows an index
 * wherever one can serve. Deleting an application read every attempt and delivery there was,
 * and every call on tokens every token (the list walking the primary key), before migration 14.
 */
import { expect, it } from "vitest";
import { useCleanup } from "../support/cleanup.js";
import { aSharedStore, freshSchemaName } from "../support/postgres.js";
import { anApplicationWithHistory, picksRows, readThenDelete } from "./application-reads.js";
import {
  postgresPlan,
  sentStatementsRecorded,
  type PlanNode,
  planningClient,
} from "./recorded-statements.js";

const cleanup = useCleanup();

it("reads an application's rows and expired tokens through an index", async () => {
  const schema = freshSchemaName();
  const store = await aSharedStore(cleanup, schema);
  const app = await anApplicationWithHistory(store);
  const sent = sentStatementsRecorded(cleanup);
  await readThenDelete(store, app);
  sent.stop();

  const asked = [...sent.statements].filter(([text]) => picksRows(text));
  expect(asked.some(([text]) => /DELETE FROM attempts/.test(text))).toBe(true);
  const client = await planningClient(cleanup, schema);
  const walking: { sql: string; walks: string[] }[] = [];
  for (const [text, values] of asked) {
    const walks = (await postgresPlan(client, text, values)).flatMap(walksOf);
    if (walks.length) walking.push({ sql: text.replace(/\s+/g, " "), walks });
  }
  expect(walking).toEqual([]);
});

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
  return walks ? [`${node["Node Type"]} on ${table}: ${cond || "(none)"}`] : [];
}
