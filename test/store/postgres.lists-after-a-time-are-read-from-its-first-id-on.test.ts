/**
 * PostgreSQL reads lists of messages and attempts created after a time (`after`, in either
 * order) through their index from the first id made after it on. By time alone an ascending list
 * walked every older message or attempt of the application or endpoint before its first match,
 * and a descending one every newer. Explained with the values sent and sequential scans off, so
 * the plan shows the index's range.
 */
import { expect, it } from "vitest";
import { useCleanup } from "../support/cleanup.js";
import { aSharedStore, freshSchemaName } from "../support/postgres.js";
import { postgresPlan, sentStatementsRecorded, planningClient } from "./recorded-statements.js";
import { anEndpointWithHistory, readListsAfter, readsByTime } from "./recent-reads.js";

const cleanup = useCleanup();

it("reads messages and attempts after a time from its first id on", async () => {
  const schema = freshSchemaName();
  const store = await aSharedStore(cleanup, schema);
  const ids = await anEndpointWithHistory(store);
  const sent = sentStatementsRecorded(cleanup);
  await readListsAfter(store, ids);
  sent.stop();

  const asked = [...sent.statements].filter(([text]) => readsByTime(text));
  // The application's messages, the endpoint's messages and its attempts, in either order.
  expect(asked).toHaveLength(6);
  const client = await planningClient(cleanup, schema);
  const reads = [];
  for (const [text, values] of asked) {
    const nodes = await postgresPlan(client, text, values);
    reads.push(...nodes.filter((n) => /^(messages|attempts)$/.test(n["Relation Name"] ?? "")));
  }
  expect(reads).toHaveLength(6);
  const unbounded = reads.filter((n) => !/\bid >= /.test(n["Index Cond"] ?? ""));
  expect(unbounded.map((n) => [n["Node Type"], n["Index Name"], n["Index Cond"]])).toEqual([]);
});
