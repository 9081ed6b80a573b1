/**
 * Stores of each kind for the encryption-at-rest tests, opened with a given cipher, whose storage
 * a test reads around hookline, as someone holding a copy of the database would.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FieldCipher } from "../../src/security/cipher.js";
import type { Store } from "../../src/store/port.js";
import { PostgresStore } from "../../src/store/postgres/store.js";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { adminQuery, dropSchema, freshSchemaName, TEST_DATABASE_URL } from "./postgres.js";

export interface RawStore {
  open(cipher: FieldCipher): Promise<Store>;
  /** Everything stored that may hold a secret, a payload or a token, as one string. */
  rawText(): Promise<string>;
  cleanup(): Promise<void>;
}

/** A SQLite store in a fresh directory; its raw text is every file SQLite left there. */
export function sqliteRaw(): RawStore {
  const dir = mkdtempSync(join(tmpdir(), "hookline-enc-"));
  return {
    open: async (cipher) =>
      new SqliteStore({ path: join(dir, "hookline.db"), synchronous: "normal", cipher }),
    rawText: async () => rawFiles(dir),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A PostgreSQL store in a fresh schema; its raw text is the columns that hold sealed values. */
export function postgresRaw(): RawStore {
  const schema = freshSchemaName();
  return {
    open: (cipher) =>
      PostgresStore.open({ connectionString: TEST_DATABASE_URL, schema, poolSize: 2, cipher }),
    rawText: async () =>
      JSON.stringify([
        await adminQuery(`SELECT secrets::text, headers::text FROM ${schema}.endpoints`),
        await adminQuery(`SELECT encode(payload, 'escape') AS p FROM ${schema}.messages`),
        await adminQuery(`SELECT body FROM ${schema}.idempotency_keys`),
      ]),
    cleanup: () => dropSchema(schema),
  };
}

/** The database file, its WAL and anything else SQLite left in the directory, as text. */
export function rawFiles(dir: string): string {
  return readdirSync(dir)
    .map((f) => readFileSync(join(dir, f)).toString("latin1"))
    .join("\n");
}
