/** Brings a schema up to date with the numbered migrations, safely from many processes at once. */
import type pg from "pg";
import { SCHEMA_NAME } from "./database.js";
import { MIGRATIONS, type Migration } from "./migrations.js";
import { refuseNewerSchema } from "../newer-schema.js";

/** The class half of the advisory lock key that serialises migrations (the other is the schema). */
const MIGRATION_LOCK = 0x686c6d67; // "hlmg"

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
): Promise<number> {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid PostgreSQL schema name "${schema}"`);
  const client = await pool.connect();
  let broken: Error | undefined;
  let applied = 0;
  try {
    for (const m of migrations) {
      await client.query("BEGIN");
      try {
        await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [
          MIGRATION_LOCK,
          schema,
        ]);
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
        // Whatever the connection's own search_path, the migration's tables go into the schema.
        await client.query(`SET LOCAL search_path TO ${schema}`);
        await client.query(`CREATE TABLE IF NOT EXISTS hookline_migrations (
          version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`);
        const newest = await client.query<{ v: number | null }>(
          "SELECT max(version) AS v FROM hookline_migrations",
        );
        refuseNewerSchema(
          newest.rows[0]?.v ?? null,
          migrations,
          `the PostgreSQL schema "${schema}"`,
        );
        const done = await client.query("SELECT 1 FROM hookline_migrations WHERE version = $1", [
          m.version,
        ]);
        if (done.rows.length === 0) {
          await client.query(m.sql);
          await client.query(
            "INSERT INTO hookline_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
            [m.version, m.name, Date.now()],
          );
          applied++;
        }
        await client.query("COMMIT");
      } catch (err) {
        await client.query("ROLLBACK").catch((rollbackErr: Error) => (broken = rollbackErr));
        throw err;
      }
    }
    return applied;
  } finally {
    client.release(broken);
  }
}
