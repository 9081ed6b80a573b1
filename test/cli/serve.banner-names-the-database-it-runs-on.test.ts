/**
 * On PostgreSQL the data dir holds only the generated admin token, so the start banner's "Data"
 * names the database and schema hookline runs on, never the password in DATABASE_URL. It used to
 * show the data dir, sending an operator looking for the messages to a folder with one file.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { spawnHookline, type HooklineProcess } from "../support/process.js";

let running: HooklineProcess | null = null;
let dir = "";
let schema = "";
afterEach(async () => {
  running?.child.kill("SIGTERM");
  await running?.exited;
  running = null;
  await dropSchema(schema);
  rmSync(dir, { recursive: true, force: true });
});

describe("the start banner on PostgreSQL", () => {
  it("names the database and its schema, without the password", async () => {
    dir = mkdtempSync(join(tmpdir(), "hookline-banner-"));
    schema = freshSchemaName();
    // The test server trusts loopback logins, so the password is sent and never checked.
    const url = new URL(TEST_DATABASE_URL);
    url.password = "not-for-the-log";
    running = await spawnHookline(dir, {
      DATABASE_URL: url.toString(),
      HOOKLINE_PG_SCHEMA: schema,
    });
    url.password = "";
    const data = /^ {2}Data: +(.*)$/m.exec(running.output())?.[1];
    expect(data).toBe(`PostgreSQL ${url.toString()}, schema ${schema}`);
    expect(running.output()).not.toContain("not-for-the-log");
  }, 60_000);
});
