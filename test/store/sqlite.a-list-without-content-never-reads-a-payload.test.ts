/**
 * SQLite reads a list of messages without content (`with_content=false`, the dashboard's message
 * list) without their payloads. It read every payload of the page and dropped them in the API:
 * 100 messages of 1 MiB took 0.3–0.5 s of the main thread to list with none shown.
 */
import { join } from "node:path";
import { expect, it } from "vitest";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import {
  anApplicationWithLargePayloads,
  readsPayloads,
  readWithoutContent,
} from "./payload-reads.js";
import { runStatementsRecorded } from "./recorded-statements.js";

const cleanup = useCleanup();

it("lists and finds messages without content reading no payload", async () => {
  const path = join(tempDir(cleanup, "hookline-heads-"), "hookline.db");
  const store = new SqliteStore({ path, synchronous: "normal" });
  cleanup.push(() => store.close());
  const ids = await anApplicationWithLargePayloads(store);
  const ran = runStatementsRecorded(cleanup);
  await readWithoutContent(store, ids);
  ran.stop();

  const asked = [...ran.sources].filter((sql) => /\bmessages\b/.test(sql));
  // The application's messages, the endpoint's, and messages by id.
  expect(asked).toHaveLength(3);
  expect(asked.filter(readsPayloads)).toEqual([]);
});
