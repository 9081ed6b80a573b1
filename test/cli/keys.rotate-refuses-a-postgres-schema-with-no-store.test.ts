/**
 * `hookline keys rotate` on PostgreSQL works on the schema HOOKLINE_PG_SCHEMA names (default
 * `hookline`). Run without the setting serve has, or with a typo, it must not create that schema
 * empty and report "done: the old keys may now be removed": the real schema still needs them.
 * A schema hookline has made is rotated as before.
 */
import { PassThrough } from "node:stream";
import { expect, it } from "vitest";
import { keysCommand } from "../../src/cli/keys.js";
import { useCleanup } from "../support/cleanup.js";
import {
  aSchemaName,
  aSharedStore,
  freshSchemaName,
  schemaExists,
  TEST_DATABASE_URL,
} from "../support/postgres.js";

const cleanup = useCleanup();

function rotate(schema: string, out = new PassThrough()): Promise<unknown> {
  const env = { DATABASE_URL: TEST_DATABASE_URL, HOOKLINE_PG_SCHEMA: schema };
  return keysCommand(env, out).parseAsync(["rotate"], { from: "user" });
}

it("refuses a schema that does not exist, creating nothing", async () => {
  const schema = aSchemaName(cleanup);
  await expect(rotate(schema)).rejects.toThrow(
    `the PostgreSQL schema "${schema}" (HOOKLINE_PG_SCHEMA) holds no hookline store`,
  );
  expect(await schemaExists(schema)).toBe(false);
});

it("rotates a schema hookline made", async () => {
  const schema = freshSchemaName();
  await aSharedStore(cleanup, schema);
  const out = new PassThrough().setEncoding("utf8");
  await rotate(schema, out);
  expect(out.read()).toContain("done");
});
