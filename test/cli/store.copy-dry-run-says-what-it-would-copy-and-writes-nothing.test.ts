/**
 * A team planning its move runs `hookline store copy --dry-run` first: it runs the copy's checks,
 * says what the copy would move (rows per table, deliveries still to be sent, NULs it would
 * replace, the key the destination needs) and writes nothing: no schema made, no migration, no
 * sequence moved, the SQLite file byte for byte as it was. The copy run afterwards goes through
 * and moves what the dry run counted.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { expect, it } from "vitest";
import { keyId } from "../../src/security/cipher.js";
import { migrate } from "../../src/store/postgres/migrate.js";
import { MIGRATIONS } from "../../src/store/postgres/migrations.js";
import { useCleanup } from "../support/cleanup.js";
import { adminQuery, aSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { aSqliteDataDir, spawnStoreCopy } from "../support/store-copy.js";

const cleanup = useCleanup();

/**
 * The SQLite files' contents, to tell that the dry run changed none of them. A WAL missing counts
 * as one empty: opening the store to read it leaves an empty one, as any reader does.
 */
function fingerprint(dir: string): string {
  const hash = createHash("sha256");
  for (const f of ["hookline.db", "hookline.db-wal"]) {
    const path = join(dir, f);
    hash.update(f).update(existsSync(path) ? readFileSync(path) : "");
  }
  return hash.digest("hex");
}

/** The count lines of a run's output (`  messages: 3`), by label. */
function counts(out: string): Record<string, number> {
  const found: Record<string, number> = {};
  for (const m of out.matchAll(/^ {2}([^:\n]+): +(\d+)/gm)) found[m[1]!] = Number(m[2]);
  return found;
}

/**
 * Everything of `schema` a copy could write: whether it exists, its tables and columns, each
 * table's rows (the ledger's too), and where each sequence stands.
 */
async function snapshot(schema: string): Promise<Record<string, unknown>> {
  const exists = await adminQuery("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
  const columns = await adminQuery(
    `SELECT table_name, column_name, data_type FROM information_schema.columns
     WHERE table_schema = $1 ORDER BY table_name, column_name`,
    [schema],
  );
  const rows: Record<string, unknown> = {};
  for (const t of new Set(columns.map((c) => c.table_name as string))) {
    rows[t] = (await adminQuery(`SELECT count(*)::int AS n FROM ${schema}.${t}`))[0]!.n;
  }
  const sequences = await adminQuery(
    "SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = $1 ORDER BY 1",
    [schema],
  );
  const ledger = exists.length
    ? await adminQuery(`SELECT version FROM ${schema}.hookline_migrations ORDER BY version`)
    : [];
  return { exists: exists.length > 0, columns, rows, sequences, ledger };
}

it("says what it would copy, leaves the schema unmade and the SQLite file as it was, and the copy then moves that", async () => {
  const key = randomBytes(32);
  const { dir, messageIds } = await aSqliteDataDir(cleanup, { messages: 3, key });
  const schema = aSchemaName(cleanup);
  // One delivery claimed when hookline stopped, and a name an older hookline took with a NUL.
  const db = new Database(join(dir, "hookline.db"));
  db.prepare("UPDATE deliveries SET state = 'inflight' WHERE message_id = ?").run(messageIds[0]);
  db.prepare("UPDATE applications SET name = ?").run("Acme\u0000Inc");
  db.close();
  const before = fingerprint(dir);
  const env = { HOOKLINE_DATA_DIR: dir, HOOKLINE_ENCRYPTION_KEY: key.toString("base64") };
  const args = ["--to", TEST_DATABASE_URL, "--schema", schema];

  const dry = await spawnStoreCopy(env, [...args, "--dry-run"]);
  expect(dry.code, dry.err).toBe(0);
  expect(dry.err).toBe("");
  expect(dry.out).toContain("the copy would go through, and would copy:\n");
  expect(counts(dry.out)).toMatchObject({ applications: 1, endpoints: 1, messages: 3 });
  expect(dry.out).toContain(
    "  deliveries still to be sent: 3 (1 of them in flight when hookline stopped: they would be due again, as a restart would leave them)\n",
  );
  expect(dry.out).toContain(
    "1 text value holds NUL characters, which PostgreSQL cannot store: each NUL would be copied as U+FFFD",
  );
  expect(dry.out).toContain(
    `start hookline on PostgreSQL with the same HOOKLINE_ENCRYPTION_KEY (key ${keyId(key)})`,
  );
  expect(dry.out).toContain(
    `the schema ${schema} does not exist: the copy would make it and migrate it to version `,
  );
  expect(dry.out).toContain("dry run: nothing was written to PostgreSQL");
  expect(await snapshot(schema)).toEqual({
    exists: false,
    columns: [],
    rows: {},
    sequences: [],
    ledger: [],
  });
  expect(fingerprint(dir)).toBe(before);

  const real = await spawnStoreCopy(env, args);
  expect(real.code, real.err).toBe(0);
  expect(counts(real.out)).toEqual(counts(dry.out));
  expect(real.out).toContain("  deliveries still to be sent: 3 (1 of them in flight");
  expect(real.out).toContain("1 text value held NUL characters");
  const copied = await snapshot(schema);
  expect(copied.exists).toBe(true);
  expect((copied.rows as Record<string, number>).messages).toBe(3);
}, 60_000);

it("leaves a schema a hookline made and left as it was: its version, tables and sequences", async () => {
  const { dir } = await aSqliteDataDir(cleanup, { messages: 2 });
  // Circuit transitions numbered up to 41 on SQLite: the copy moves the destination's sequence.
  const db = new Database(join(dir, "hookline.db"));
  db.exec("DELETE FROM sqlite_sequence WHERE name = 'circuit_transitions'");
  db.exec("INSERT INTO sqlite_sequence (name, seq) VALUES ('circuit_transitions', 41)");
  db.close();
  const before = fingerprint(dir);
  const schema = aSchemaName(cleanup);
  // Made by the hookline before this one: one migration short of this version.
  const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
  try {
    await migrate(pool, schema, MIGRATIONS.slice(0, -1));
  } finally {
    await pool.end();
  }
  const [current, previous] = MIGRATIONS.map((m) => m.version).reverse();
  const made = await snapshot(schema);
  expect(made.ledger).toHaveLength(MIGRATIONS.length - 1);
  const args = ["--to", TEST_DATABASE_URL, "--schema", schema];

  const dry = await spawnStoreCopy({ HOOKLINE_DATA_DIR: dir }, [...args, "--dry-run"]);
  expect(dry.code, dry.err).toBe(0);
  expect(dry.out).toContain(
    `the schema ${schema} holds no hookline data, at version ${previous}: the copy would migrate it to version ${current}\n`,
  );
  expect(counts(dry.out)).toMatchObject({ messages: 2, deliveries: 2 });
  expect(await snapshot(schema)).toEqual(made);
  expect(fingerprint(dir)).toBe(before);

  // What the dry run left alone, the copy does: migrates, writes and moves the sequence.
  const real = await spawnStoreCopy({ HOOKLINE_DATA_DIR: dir }, args);
  expect(real.code, real.err).toBe(0);
  const copied = await snapshot(schema);
  expect(copied.ledger).toHaveLength(MIGRATIONS.length);
  expect(copied.sequences).toContainEqual({
    sequencename: "circuit_transitions_seq_seq",
    last_value: "41",
  });
}, 60_000);
