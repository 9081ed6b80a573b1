/**
 * On PostgreSQL the data dir holds only the generated admin token, so the start banner's "Data"
 * names the database and schema hookline runs on, never the password in DATABASE_URL. It used to
 * show the data dir, sending an operator looking for the messages to a folder with one file.
 */
import { describe, expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { runHookline } from "../support/process.js";

const cleanup = useCleanup();

describe("the start banner on PostgreSQL", () => {
  it("names the database and its schema, without the password", async () => {
    const dir = tempDir(cleanup, "hookline-banner-");
    const schema = freshSchemaName();
    cleanup.push(() => dropSchema(schema));
    // The test server trusts loopback logins, so the password is sent and never checked.
    const url = new URL(TEST_DATABASE_URL);
    url.password = "not-for-the-log";
    const running = await runHookline(cleanup, dir, {
      DATABASE_URL: url.toString(),
      HOOKLINE_PG_SCHEMA: schema,
    });
    url.password = "";
    const data = /^ {2}Data: +(.*)$/m.exec(running.output())?.[1];
    expect(data).toBe(`PostgreSQL ${url.toString()}, schema ${schema}`);
    expect(running.output()).not.toContain("not-for-the-log");
  }, 60_000);
});
