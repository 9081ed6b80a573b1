/**
 * A long copy says where it stands on stderr, every 2 s at most, batch by batch; a short one says
 * nothing there. Its summary, on stdout, counts what it copied.
 */
import { expect, it } from "vitest";
import { useCleanup } from "../support/cleanup.js";
import { aSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { aSqliteDataDir, runStoreCopy } from "../support/store-copy.js";

const cleanup = useCleanup();

async function copyWithClock(messages: number, stepMs: number) {
  const { dir } = await aSqliteDataDir(cleanup, { messages });
  const schema = aSchemaName(cleanup);
  let now = 0;
  const args = ["--to", TEST_DATABASE_URL, "--schema", schema];
  return runStoreCopy({ HOOKLINE_DATA_DIR: dir }, args, () => (now += stepMs));
}

it("a copy whose batches take seconds says how far it is, table by table", async () => {
  const run = await copyWithClock(1_100, 3_000);
  expect(run.failure).toBeNull();
  const lines = run.err.split("\n");
  expect(lines).toContain("hookline: copying messages: 500 of 1100");
  expect(lines).toContain("hookline: copying messages: 1000 of 1100");
  expect(lines).toContain("hookline: copying messages: 1100 of 1100");
  expect(lines).toContain("hookline: copying deliveries: 1100 of 1100");
  expect(run.out).toMatch(/\n {2}messages: +1100\n/);
  expect(run.out).toMatch(/\n {2}deliveries still to be sent: 1100\n/);
});

it("a quick copy says nothing on stderr", async () => {
  const run = await copyWithClock(10, 1);
  expect(run.failure).toBeNull();
  expect(run.err).toBe("");
});
