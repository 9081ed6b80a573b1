/**
 * Why a page of a message's deliveries was given up on (`deadLetterReasons`, each destination's
 * `delivery.reason`) is read through the records' index by delivery, with sequential scans off so
 * that the plan shows the index that serves it: the page's records alone, however many the
 * message has (one given up at 10,000 endpoints has as many); its tombstones through their
 * index by message; and a replay's history, for why it ended unsent, through the history's index
 * by delivery.
 */
import { expect, it } from "vitest";
import { useCleanup } from "../support/cleanup.js";
import { aSharedStore, freshSchemaName } from "../support/postgres.js";
import { planningClient, postgresPlan, sentStatementsRecorded } from "./recorded-statements.js";

const cleanup = useCleanup();

it("reads the reasons of the deliveries asked for through the records' index by delivery", async () => {
  const schema = freshSchemaName();
  const store = await aSharedStore(cleanup, schema);
  const sent = sentStatementsRecorded(cleanup);
  await store.deadLetterReasons("msg_01KAAAAAAAAAAAAAAAAAAAAAAA", [
    "dlv_01KBBBBBBBBBBBBBBBBBBBBBBB",
    "dlv_01KCCCCCCCCCCCCCCCCCCCCCCC",
  ]);
  sent.stop();

  const asked = [...sent.statements].filter(([text]) => /FROM dead_letters\b/.test(text));
  expect(asked).toHaveLength(1);
  const client = await planningClient(cleanup, schema);
  const [text, values] = asked[0]!;
  const plan = await postgresPlan(client, text, values);
  // A bitmap scan names its index on the node below the heap's.
  expect(plan.map((n) => n["Node Type"])).not.toContain("Seq Scan");
  expect(plan.map((n) => n["Index Name"]).filter(Boolean)).toEqual([
    "dead_letters_delivery_id_key",
    "dead_letter_overflow_by_message",
    "dead_letter_events_by_delivery",
  ]);
});
