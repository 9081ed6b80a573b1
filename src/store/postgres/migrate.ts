/** Brings a schema up to date with the numbered migrations, safely from many processes at once. */
import type pg from "pg";
import {
  endedIdle,
  isTimeout,
  isUnavailable,
  NO_SERVER_BOUND,
  SCHEMA_NAME,
  unbounded,
} from "./database.js";
import { ENCODING_COLUMNS, narrowEncodingError, type DatabaseEncoding } from "./encoding.js";
import { MIGRATIONS, type Migration } from "./migrations.js";
import { ConfigError, StoreUnavailableError } from "../../errors.js";
import { refuseNewerSchema } from "../newer-schema.js";

/** The class half of the advisory lock key that serialises migrations (the other is the schema). */
export const MIGRATION_LOCK = 0x686c6d67; // "hlmg"

/**
 * Applies pending migrations to `schema`, each in its own transaction. Each transaction first takes
 * a transaction-scoped advisory lock for the schema and only then creates the schema and ledger if
 * missing and reads the ledger, so processes migrating the same database at once wait for each
 * other and apply every migration exactly once. Returns how many this call applied.
 */
export async function migrate(
  pool: pg.Pool,
  schema: string,
  migrations: readonly Migration[] = MIGRATIONS,
  options: { existingOnly?: boolean } = {},
): Promise<number> {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid PostgreSQL schema name "${schema}"`);
  const client = await connect(pool);
  // Each statement waits at most the query timeout, so a server that lets hookline log in and
  // then answers nothing (its processes or its disk hung) fails start-up rather than holding it
  // forever. Two are exempt, as they may rightly run for long: waiting for another process's
  // migration, and the migration itself (it may rewrite a large table). A store closed meanwhile
  // gives up on those after its own bound (see PostgresStore.close).
  const query = <R extends pg.QueryResultRow>(text: string, values?: unknown[]) =>
    client.query<R>({ text, values });
  const long = (text: string, values?: unknown[]) => client.query(unbounded({ text, values }));
  let broken: Error | undefined;
  let applied = 0;
  try {
    try {
      await refuseNarrowEncoding(query, schema);
    } catch (err) {
      if (isTimeout(err)) broken = err as Error;
      throw err;
    }
    for (const m of migrations) {
      try {
        await query("BEGIN");
        await query(NO_SERVER_BOUND);
        await long("SELECT pg_advisory_xact_lock($1, hashtext($2))", [MIGRATION_LOCK, schema]);
        if (options.existingOnly) {
          const ledger = await query<{ t: string | null }>("SELECT to_regclass($1)::text AS t", [
            `${schema}.hookline_migrations`,
          ]);
          if (!ledger.rows[0]?.t) {
            throw new ConfigError(
              `the PostgreSQL schema "${schema}" (HOOKLINE_PG_SCHEMA) holds no hookline store`,
            );
          }
        }
        // Only when missing: PostgreSQL checks CREATE on the database even for IF NOT EXISTS, and
        // a role given a schema of its own (CREATE SCHEMA … AUTHORIZATION) often lacks it.
        const exists = await query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
        if (exists.rows.length === 0) await query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
        // Without USAGE PostgreSQL leaves the schema off the search_path, and the ledger below
        // fails with "no schema has been selected to create in" (3F000), which reads as the
        // schema being gone rather than as the role's missing grant.
        const usage = await query<{ ok: boolean }>(
          "SELECT has_schema_privilege($1, 'USAGE') AS ok",
          [schema],
        );
        if (usage.rows[0]?.ok === false) {
          throw new Error(
            `permission denied for schema ${schema}: the role has no USAGE on it, and hookline needs a schema its role owns (docs/configuration.md, DATABASE_URL)`,
          );
        }
        // Whatever the connection's own search_path, the migration's tables go into the schema.
        await query(`SET LOCAL search_path TO ${schema}`);
        await query(`CREATE TABLE IF NOT EXISTS hookline_migrations (
          version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`);
        const newest = await query<{ v: number | null }>(
          "SELECT max(version) AS v FROM hookline_migrations",
        );
        refuseNewerSchema(
          newest.rows[0]?.v ?? null,
          migrations,
          `the PostgreSQL schema "${schema}"`,
        );
        const done = await query("SELECT 1 FROM hookline_migrations WHERE version = $1", [
          m.version,
        ]);
        if (done.rows.length === 0) {
          await long(m.sql);
          await query(
            "INSERT INTO hookline_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
            [m.version, m.name, Date.now()],
          );
          applied++;
        }
        await query("COMMIT");
      } catch (caught) {
        // A process stopped mid-migration, continued once the server has ended its transaction,
        // holds the migration lock no more: it says so, and goes no further.
        const err = await endedIdle(client, caught);
        // A statement left unanswered may be answered yet: the connection is closed rather than
        // rolled back (a ROLLBACK would queue behind it), and the server rolls back when it sees
        // it go.
        if (isTimeout(caught)) broken = caught as Error;
        else await query("ROLLBACK").catch((rollbackErr: Error) => (broken = rollbackErr));
        throw err;
      }
    }
    return applied;
  } finally {
    client.release(broken);
  }
}

/**
 * Refuses, before anything is written, a database that cannot hold every character hookline
 * accepts (see encoding.ts): a hookline started on one migrated it, then failed request by request.
 */
async function refuseNarrowEncoding(
  query: (text: string) => Promise<pg.QueryResult<DatabaseEncoding>>,
  schema: string,
): Promise<void> {
  const { rows } = await query(`SELECT ${ENCODING_COLUMNS}`);
  const refusal = narrowEncodingError(
    rows[0]!,
    "DATABASE_URL",
    `point DATABASE_URL at it; hookline's data already in this one moves over with pg_dump --schema=${schema}, restored into the new one with psql (PostgreSQL converts it), a SQLite store's with hookline store copy. hookline wrote nothing there`,
  );
  if (refusal) throw refusal;
}

/**
 * The migration's connection. One refused for its TLS (sslmode=require against a server without
 * it, a certificate not trusted, an sslrootcert file missing) is no fault of the migration, which
 * is what it was called. (pg throws the missing file at once, not through the promise.)
 */
async function connect(pool: pg.Pool): Promise<pg.PoolClient> {
  try {
    return await pool.connect();
  } catch (err) {
    if (isUnavailable(err)) throw err;
    const why = err instanceof Error ? err.message : String(err);
    throw new StoreUnavailableError(`cannot connect: ${why}`, { cause: err });
  }
}
