/**
 * Which PG* variables hookline names when PostgreSQL refuses it: those the driver reads, for what
 * the URL leaves out, set to something (the driver skips an empty one); never a password's value.
 * Checked against the driver itself, for the parts it exposes.
 */
import pg from "pg";
import { afterEach, expect, it } from "vitest";
import { pgVariablesUsed, sayPgVariables } from "../src/postgres-environment.js";

const EVERY = {
  PGHOST: "db.internal",
  PGPORT: "6432",
  PGUSER: "someone",
  PGPASSWORD: "s3cret-pw",
  PGPASSFILE: "/etc/hookline/pgpass",
  PGDATABASE: "elsewhere",
  PGSSLMODE: "prefer",
  PGSSLNEGOTIATION: "postgres",
  PGREPLICATION: "database",
};

const names = (url: string, env: Record<string, string> = EVERY) =>
  pgVariablesUsed(url, env).map((v) => v.name);

const saved = { ...process.env };
afterEach(() => {
  for (const name of Object.keys(EVERY)) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

/** What the driver would connect with, given `url` and EVERY in the environment. */
function driverReads(url: string): { host: string; port: number; user: string; database: string } {
  Object.assign(process.env, EVERY);
  const client = new pg.Client({ connectionString: url }) as unknown as {
    connectionParameters: { host: string; port: number; user: string; database: string };
  };
  return client.connectionParameters;
}

it("names every variable a URL with only a host leaves to the environment, but PGHOST", () => {
  expect(names("postgres://127.0.0.1")).toEqual([
    "PGPORT",
    "PGUSER",
    "PGPASSWORD",
    "PGDATABASE",
    "PGSSLMODE",
    "PGSSLNEGOTIATION",
    "PGREPLICATION",
  ]);
  expect(driverReads("postgres://127.0.0.1")).toMatchObject({
    host: "127.0.0.1",
    port: 6432,
    user: "someone",
    database: "elsewhere",
  });
});

it("names none of those a full URL gives, in its parts or as query parameters", () => {
  const parts = "postgres://me:pw@127.0.0.1:5432/test?sslmode=disable&sslnegotiation=postgres";
  expect(names(`${parts}&replication=false`)).toEqual([]);
  const query = "postgres:///?host=127.0.0.1&port=5432&user=me&password=pw&ssl=0&replication=0";
  expect(names(query)).toEqual(["PGDATABASE", "PGSSLNEGOTIATION"]);
  expect(driverReads(query)).toMatchObject({
    host: "127.0.0.1",
    port: 5432,
    user: "me",
    database: "elsewhere",
  });
});

it("names PGHOST for a URL without a host, and PGPASSFILE only without any password", () => {
  expect(names("postgres:///test", { PGHOST: "/run/postgresql", PGPASSFILE: "/p" })).toEqual([
    "PGHOST",
    "PGPASSFILE",
  ]);
  expect(driverReads("postgres:///test").host).toBe("db.internal");
  expect(names("postgres:///test", { PGPASSWORD: "pw", PGPASSFILE: "/p" })).toEqual(["PGPASSWORD"]);
});

it("takes an empty variable, or an empty query parameter, for one not there", () => {
  expect(names("postgres://127.0.0.1/test?user=", { PGUSER: "", PGPORT: "6432" })).toEqual([
    "PGPORT",
  ]);
  expect(names("postgres://127.0.0.1/test?user=", { PGUSER: "someone" })).toEqual(["PGUSER"]);
  // An empty sslmode leaves TLS to PGSSLMODE; an empty ssl connects without TLS.
  expect(names("postgres://h/t?sslmode=", { PGSSLMODE: "require" })).toEqual(["PGSSLMODE"]);
  expect(names("postgres://h/t?ssl=", { PGSSLMODE: "require" })).toEqual([]);
  expect(names("postgres://h/t?sslnegotiation=direct", { PGSSLMODE: "require" })).toEqual([]);
  // As the driver does: PGSSLMODE=no-verify is the one mode that shows where TLS came from.
  const ssl = (url: string) => {
    process.env.PGSSLMODE = "no-verify";
    const client = new pg.Client({ connectionString: url }) as unknown as {
      connectionParameters: { ssl: unknown };
    };
    return client.connectionParameters.ssl;
  };
  expect(ssl("postgres://h/t?sslmode=")).toEqual({ rejectUnauthorized: false });
  expect(ssl("postgres://h/t?ssl=")).toBe("");
});

it("says each with its value, a password without, and what a TLS mode psql reads otherwise means", () => {
  const said = sayPgVariables("DATABASE_URL", pgVariablesUsed("postgres://127.0.0.1/t", EVERY));
  expect(said).toBe(
    "; taken from the environment, as DATABASE_URL leaves them out: PGPORT=6432, PGUSER=someone, PGPASSWORD (not shown), PGSSLMODE=prefer (which the driver reads as verify-full: TLS with a certificate trusted for the host, or no connection; psql would connect without TLS), PGSSLNEGOTIATION=postgres, PGREPLICATION=database",
  );
  expect(said).not.toContain("s3cret-pw");
  const require = pgVariablesUsed("postgres://me@h/t", { PGSSLMODE: "require" });
  expect(sayPgVariables("--to", require)).toBe(
    "; taken from the environment, as --to leaves them out: PGSSLMODE=require (which the driver reads as verify-full: TLS with a certificate trusted for the host, or no connection; psql would not check the certificate)",
  );
  expect(sayPgVariables("DATABASE_URL", [])).toBe("");
});
