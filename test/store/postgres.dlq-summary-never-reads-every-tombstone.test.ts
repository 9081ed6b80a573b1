/**
 * PostgreSQL's dead-letter summary finds the endpoints with nothing open but tombstones left
 * among those that ever overflowed, asking each whether a tombstone is left: it read every
 * tombstone (up to the depth cap's worth per endpoint; 80 ms for 65,000) on each load of the DLQ
 * page. Explained with the values sent and sequential scans off.
 */
import { expect, it } from "vitest";
import { useCleanup } from "../support/cleanup.js";
import { aSharedStore, freshSchemaName } from "../support/postgres.js";
import { postgresPlan, sentStatementsRecorded, planningClient } from "./recorded-statements.js";

const cleanup = useCleanup();

it("looks up tombstones by endpoint, never reading them all", async () => {
  const schema = freshSchemaName();
  const store = await aSharedStore(cleanup, schema);
  const sent = sentStatementsRecorded(cleanup);
  await store.deadLetterSummary({});
  sent.stop();

  const asked = [...sent.statements].filter(([text]) => /dead_letter_overflow/.test(text));
  expect(asked).toHaveLength(1);
  const client = await planningClient(cleanup, schema);
  const [text, values] = asked[0]!;
  const tombstones = (await postgresPlan(client, text, values)).filter(
    (n) => n["Relation Name"] === "dead_letter_overflow",
  );
  expect(tombstones.map((n) => n["Index Cond"] ?? "(none)")).toEqual([
    expect.stringMatching(/^\(endpoint_id = /),
  ]);
});
