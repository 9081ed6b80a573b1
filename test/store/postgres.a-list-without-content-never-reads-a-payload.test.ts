/**
 * PostgreSQL reads a list of messages without content (`with_content=false`, the dashboard's
 * message list) without their payloads. It fetched every payload of the page from TOAST, sent it
 * over the connection and dropped it in the API.
 */
import { expect, it } from "vitest";
import { useCleanup } from "../support/cleanup.js";
import { aSharedStore, freshSchemaName } from "../support/postgres.js";
import {
  anApplicationWithLargePayloads,
  readsPayloads,
  readWithoutContent,
} from "./payload-reads.js";
import { sentStatementsRecorded } from "./recorded-statements.js";

const cleanup = useCleanup();

it("lists and finds messages without content reading no payload", async () => {
  const store = await aSharedStore(cleanup, freshSchemaName());
  const ids = await anApplicationWithLargePayloads(store);
  const sent = sentStatementsRecorded(cleanup);
  await readWithoutContent(store, ids);
  sent.stop();

  const asked = [...sent.statements.keys()].filter((sql) => /\bmessages\b/.test(sql));
  // The application's messages, the endpoint's, and messages by id.
  expect(asked).toHaveLength(3);
  expect(asked.filter(readsPayloads)).toEqual([]);
});
