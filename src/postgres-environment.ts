/**
 * What the PostgreSQL driver (node-postgres) takes from PostgreSQL's own PG* variables: whatever
 * a postgres:// URL leaves out, on every connection. They are no hookline settings, but one that
 * is wrong is why PostgreSQL refuses hookline, so a failure names those in use (see
 * start-failure.ts). Mirrors how the driver (pg 8, pg-connection-string 2) reads a URL.
 */

type Env = Record<string, string | undefined>;

/** A PG* variable the driver uses; `value` is null for a password, which is never printed. */
export interface PgVariable {
  name: string;
  value: string | null;
}

/** URL query parameters any of which, not empty, makes the driver take TLS from the URL. */
const TLS_IN_URL = ["sslmode", "sslcert", "sslkey", "sslrootcert"];

/**
 * The PG* variables set (to something other than nothing) that the driver uses with `url`: those
 * for what the URL gives (in its parts or as a query parameter) are not read. `url` is one
 * checkPostgresUrl accepted.
 */
export function pgVariablesUsed(url: string, env: Env): readonly PgVariable[] {
  const parsed = new URL(url);
  const query = parsed.searchParams;
  const given = (param: string, part = "") => Boolean(query.get(param) || part);
  const passwordGiven = given("password", parsed.password);
  // `ssl` counts even empty (`?ssl=` connects without TLS).
  const tlsGiven =
    query.has("ssl") ||
    TLS_IN_URL.some((param) => query.get(param)) ||
    query.get("sslnegotiation") === "direct";
  // The driver reads each only when the URL leaves its part out; PGPASSFILE only when no password
  // comes from the URL or PGPASSWORD (and the server asks for one).
  const read: [string, boolean][] = [
    ["PGHOST", !given("host", parsed.hostname)],
    ["PGPORT", !given("port", parsed.port)],
    ["PGUSER", !given("user", parsed.username)],
    ["PGPASSWORD", !passwordGiven],
    ["PGPASSFILE", !passwordGiven && !env.PGPASSWORD],
    ["PGDATABASE", parsed.pathname.length <= 1],
    ["PGSSLMODE", !tlsGiven],
    ["PGSSLNEGOTIATION", !given("sslnegotiation")],
    ["PGREPLICATION", !given("replication")],
  ];
  return read
    .filter(([name, used]) => used && env[name])
    .map(([name]) => ({ name, value: name === "PGPASSWORD" ? null : env[name]! }));
}

/**
 * How the driver reads a PGSSLMODE that psql reads otherwise: as verify-full, TLS whose
 * certificate is checked for the host, with no plain connection to fall back to.
 */
const UNLIKE_PSQL: Record<string, string> = {
  prefer: "psql would connect without TLS",
  require: "psql would not check the certificate",
  "verify-ca": "psql would not check the host name",
};

/**
 * `; taken from the environment, as <setting> leaves them out: PGUSER=…, PGPASSWORD (not shown)`,
 * to end a message about a PostgreSQL hookline could not use; nothing when none was used.
 */
export function sayPgVariables(setting: string, used: readonly PgVariable[]): string {
  if (used.length === 0) return "";
  const said = used.map(({ name, value }) => {
    if (value === null) return `${name} (not shown)`;
    const unlike = name === "PGSSLMODE" ? UNLIKE_PSQL[value] : undefined;
    return unlike
      ? `${name}=${value} (which the driver reads as verify-full: TLS with a certificate trusted for the host, or no connection; ${unlike})`
      : `${name}=${value}`;
  });
  return `; taken from the environment, as ${setting} leaves them out: ${said.join(", ")}`;
}
