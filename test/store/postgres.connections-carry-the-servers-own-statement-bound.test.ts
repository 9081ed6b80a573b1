/**
 * Every connection of the PostgreSQL store asks the server to end a statement a second after the
 * query timeout (hookline has given up on it by then), keeps the schema as its search_path, and
 * leaves settings a DATABASE_URL's own `options` make, a statement_timeout included, as they say.
 */
import { expect, it } from "vitest";
import { openPool } from "../../src/store/postgres/connections.js";
import { TEST_DATABASE_URL } from "../support/postgres.js";

async function settingsOf(connectionString: string, queryTimeoutMs?: number) {
  const pool = openPool({ connectionString, schema: "hl_settings", poolSize: 1, queryTimeoutMs });
  try {
    const { rows } = await pool.query<{ t: string; p: string; w: string }>(
      `SELECT current_setting('statement_timeout') AS t, current_setting('search_path') AS p,
        current_setting('work_mem') AS w`,
    );
    return rows[0]!;
  } finally {
    await pool.end();
  }
}

/** The test database's URL without options of its own. */
function plainUrl(): string {
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.delete("options");
  return url.toString();
}

it("bounds statements on the server a second past the query timeout", async () => {
  expect(await settingsOf(plainUrl())).toMatchObject({ t: "31s", p: "hl_settings" });
  expect(await settingsOf(plainUrl(), 5_000)).toMatchObject({ t: "6s" });
});

it("keeps the URL's own options, its statement_timeout over hookline's, but not its search_path", async () => {
  const url = new URL(plainUrl());
  url.searchParams.set("options", "-c statement_timeout=5min -c work_mem=8MB -c search_path=other");
  expect(await settingsOf(url.toString())).toEqual({ t: "5min", p: "hl_settings", w: "8MB" });
});
