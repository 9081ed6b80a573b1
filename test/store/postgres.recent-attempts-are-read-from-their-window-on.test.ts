/**
 * PostgreSQL reads an endpoint's recent attempts (the endpoint pages' charts) through the
 * endpoint's index from the first id of the window on, not by their time alone: that read every
 * attempt the endpoint ever had, once per listed endpoint at each refresh of the endpoints page.
 * Explained with the values sent and sequential scans off, so the plan shows the index's range.
 */
import { expect, it } from "vitest";
import { useCleanup } from "../support/cleanup.js";
import { aSharedStore, freshSchemaName } from "../support/postgres.js";
import { postgresPlan, sentStatementsRecorded, planningClient } from "./recorded-statements.js";
import { anEndpointWithHistory, readRecentBuckets, readsByTime } from "./recent-reads.js";

const cleanup = useCleanup();

it("reads an endpoint's recent attempts from the window's first id on", async () => {
  const schema = freshSchemaName();
  const store = await aSharedStore(cleanup, schema);
  const { endpointId } = await anEndpointWithHistory(store);
  const sent = sentStatementsRecorded(cleanup);
  await readRecentBuckets(store, endpointId);
  sent.stop();

  const asked = [...sent.statements].filter(([text]) => readsByTime(text));
  expect(asked).toHaveLength(1);
  const client = await planningClient(cleanup, schema);
  const reads = [];
  for (const [text, values] of asked) {
    const nodes = await postgresPlan(client, text, values);
    reads.push(...nodes.filter((n) => n["Relation Name"] === "attempts"));
  }
  expect(reads.map((n) => [n["Index Name"], n["Index Cond"]])).toEqual([
    ["attempts_by_endpoint", expect.stringMatching(/\(endpoint_id = .*\) AND \(id >= /)],
  ]);
});
