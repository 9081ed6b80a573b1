/**
 * An endpoint's "Failed attempts" list (the endpoint page's filter, `status=2`) is read through an
 * index of failed attempts alone, with sequential scans off so that the plan shows the index that
 * serves it. Through the endpoint's index of every attempt, it walked all of an endpoint's
 * successes to find a page of failures, at every refresh of its page, before migration 17.
 */
import { expect, it } from "vitest";
import { useCleanup } from "../support/cleanup.js";
import { aSharedStore, freshSchemaName } from "../support/postgres.js";
import { planningClient, postgresPlan, sentStatementsRecorded } from "./recorded-statements.js";

const cleanup = useCleanup();

it("reads an endpoint's failed attempts through the index of failed attempts", async () => {
  const schema = freshSchemaName();
  const store = await aSharedStore(cleanup, schema);
  const sent = sentStatementsRecorded(cleanup);
  const page = { appId: "app_x", endpointId: "ep_x", outcome: "fail", limit: 20 } as const;
  await store.listAttempts(page);
  await store.listAttempts({ ...page, iterator: "atmpt_x" });
  sent.stop();

  const asked = [...sent.statements].filter(([text]) => /FROM attempts/.test(text));
  expect(asked).toHaveLength(2);
  const client = await planningClient(cleanup, schema);
  for (const [text, values] of asked) {
    const reads = (await postgresPlan(client, text, values)).filter(
      (n) => n["Relation Name"] === "attempts",
    );
    expect(reads.map((n) => n["Index Name"])).toEqual(["attempts_failed_by_endpoint"]);
  }
});
