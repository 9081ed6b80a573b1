/**
 * The PostgreSQL driver takes what a postgres:// URL leaves out (its user, password, host, port,
 * database, TLS mode…) from PostgreSQL's own PG* variables. A wrong one (a stray PGUSER in a
 * service's environment, or PGSSLMODE=prefer, which the driver reads as TLS or nothing where psql
 * falls back to a plain connection) failed start-up with a message naming DATABASE_URL alone,
 * sending the operator to a URL that was right. `serve`, `keys rotate` and `store copy` (the
 * built CLI, as operators run it) now name the PG* variables that were used, never a password's
 * value, and leave out those the URL overrides.
 */
import { expect, it } from "vitest";
import { runCli } from "../support/built-cli.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { adminQuery, aSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { aSqliteDataDir } from "../support/store-copy.js";

const cleanup = useCleanup();

/**
 * Every PG* variable the driver reads, emptied (an empty one is not used): the test run's own,
 * if it has any, would be named too.
 */
const NO_PG_VARIABLES = Object.fromEntries(
  [
    "PGHOST",
    "PGPORT",
    "PGUSER",
    "PGPASSWORD",
    "PGPASSFILE",
    "PGDATABASE",
    "PGSSLMODE",
    "PGSSLNEGOTIATION",
    "PGREPLICATION",
  ].map((name) => [name, ""]),
);

/** The test database's URL without its user, which PGUSER then gives. */
function withoutUser(): string {
  const url = new URL(TEST_DATABASE_URL);
  url.username = "";
  url.password = "";
  return url.toString();
}

/** `hookline serve` with `env`, which must fail: what it said on stderr. */
async function failedServe(env: Record<string, string>): Promise<string> {
  const { code, out, err } = await runCli(["serve"], {
    ...NO_PG_VARIABLES,
    HOOKLINE_DATA_DIR: tempDir(cleanup, "hookline-pgenv-"),
    HOOKLINE_PG_SCHEMA: aSchemaName(cleanup),
    HOOKLINE_PORT: "0",
    HOOKLINE_LOG_LEVEL: "silent",
    HOOKLINE_SENDER_THREADS: "0",
    ...env,
  });
  expect(code, out + err).toBe(1);
  return err.trim();
}

it("serve names the PGUSER it logged in as, and a PGPASSWORD without its value", async () => {
  const said = await failedServe({
    DATABASE_URL: withoutUser(),
    PGUSER: "no_such_role",
    PGPASSWORD: "s3cret-pw",
  });
  expect(said).toBe(
    `hookline: cannot use PostgreSQL at ${withoutUser()} (DATABASE_URL): PostgreSQL store unavailable (28000): role "no_such_role" does not exist; taken from the environment, as DATABASE_URL leaves them out: PGUSER=no_such_role, PGPASSWORD (not shown)`,
  );
  expect(said).not.toContain("s3cret-pw");
}, 60_000);

it("serve says what PGSSLMODE=prefer means to the driver when the server has no TLS", async () => {
  // The local test server runs without TLS, which psql's prefer would fall back from.
  expect(await adminQuery("SHOW ssl")).toEqual([{ ssl: "off" }]);
  const said = await failedServe({ DATABASE_URL: TEST_DATABASE_URL, PGSSLMODE: "prefer" });
  expect(said).toBe(
    `hookline: cannot use PostgreSQL at ${TEST_DATABASE_URL} (DATABASE_URL): cannot connect: The server does not support SSL connections; taken from the environment, as DATABASE_URL leaves them out: PGSSLMODE=prefer (which the driver reads as verify-full: TLS with a certificate trusted for the host, or no connection; psql would connect without TLS)`,
  );
}, 60_000);

it("serve leaves out the PG* variables DATABASE_URL overrides", async () => {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = "/no_such_database";
  url.searchParams.set("sslmode", "disable");
  const said = await failedServe({
    DATABASE_URL: url.toString(),
    PGUSER: "no_such_role",
    PGDATABASE: "test",
    PGSSLMODE: "prefer",
  });
  expect(said).toMatch(/database "no_such_database" does not exist$/);
  expect(said).not.toContain("PG");
}, 60_000);

it("keys rotate names the PG* variables it used", async () => {
  const { code, err } = await runCli(["keys", "rotate"], {
    ...NO_PG_VARIABLES,
    HOOKLINE_DATA_DIR: tempDir(cleanup, "hookline-pgenv-"),
    HOOKLINE_PG_SCHEMA: aSchemaName(cleanup),
    DATABASE_URL: withoutUser(),
    PGUSER: "no_such_role",
  });
  expect(code).toBe(1);
  expect(err.trim()).toBe(
    `hookline: cannot use PostgreSQL at ${withoutUser()} (DATABASE_URL): PostgreSQL store unavailable (28000): role "no_such_role" does not exist; taken from the environment, as DATABASE_URL leaves them out: PGUSER=no_such_role`,
  );
}, 60_000);

it("store copy names the PG* variables that filled in --to", async () => {
  const { dir } = await aSqliteDataDir(cleanup);
  const { code, err } = await runCli(
    ["store", "copy", "--to", withoutUser(), "--schema", aSchemaName(cleanup)],
    { ...NO_PG_VARIABLES, HOOKLINE_DATA_DIR: dir, PGUSER: "no_such_role" },
  );
  expect(code).toBe(1);
  expect(err.trim()).toBe(
    `hookline: cannot connect to the PostgreSQL database (--to): role "no_such_role" does not exist; taken from the environment, as --to leaves them out: PGUSER=no_such_role; nothing was written`,
  );
}, 60_000);
