/**
 * Chooses and opens the store from the configuration: PostgreSQL when DATABASE_URL is set, else
 * the embedded SQLite file in the data dir. The rest of hookline sees only the port.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config.js";
import { ConfigError } from "../errors.js";
import { FieldCipher } from "../security/cipher.js";
import { dataDirFailure } from "../start-failure.js";
import type { Store } from "./port.js";
import { PostgresStore } from "./postgres/store.js";
import { DEFAULT_CHECKPOINTS } from "./sqlite/checkpointer.js";
import { SqliteStore } from "./sqlite/store.js";

/** The SQLite file of a data dir. */
export function sqliteFile(dataDir: string): string {
  return join(dataDir, "hookline.db");
}

/**
 * The SQLite file of a data dir that holds one; else a ConfigError naming HOOKLINE_DATA_DIR, for a
 * dir without one (new, or a typo) and, said as `serve` says it, for a path that cannot be used (a
 * file on the way, no access), which is not one that holds nothing.
 */
export function existingSqliteFile(dataDir: string): string {
  const file = sqliteFile(dataDir);
  let found: boolean;
  try {
    found = statSync(file, { throwIfNoEntry: false }) !== undefined;
  } catch (err) {
    throw dataDirFailure(err, dataDir);
  }
  if (!found) {
    throw new ConfigError(`HOOKLINE_DATA_DIR ${dataDir} holds no hookline store (no hookline.db)`);
  }
  return file;
}

/** Where the store reports trouble it survives. */
export interface StoreLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/**
 * Opens the configured store. SQLite is migrated here (a data dir it cannot use throws a
 * ConfigError naming HOOKLINE_DATA_DIR); PostgreSQL connects and migrates on first use
 * (hookline's start), so a database that is down fails start-up with StoreUnavailableError.
 * `existingOnly` refuses, with a ConfigError, a store hookline has not made yet instead of
 * making it: no SQLite file in the data dir, or no hookline tables in the PostgreSQL schema.
 * On PostgreSQL the server ends a transaction left idle past HOOKLINE_PG_QUERY_TIMEOUT_MS (see
 * `PostgresOptions.idleInTransactionTimeoutMs`), for serve and keys rotate alike.
 */
export function openStore(
  config: Readonly<Config>,
  log?: StoreLogger,
  options: { existingOnly?: boolean } = {},
): Store {
  const limits = { maxOpenDeadLettersPerEndpoint: config.dlqMaxPerEndpoint };
  const cipher = new FieldCipher(config.encryptionKey, config.encryptionOldKeys);
  if (config.databaseUrl) {
    return new PostgresStore({
      connectionString: config.databaseUrl,
      schema: config.pgSchema,
      poolSize: config.pgPoolSize,
      preparedStatements: config.pgPreparedStatements,
      queryTimeoutMs: config.pgQueryTimeoutMs,
      existingOnly: options.existingOnly,
      idleInTransactionTimeoutMs: config.pgQueryTimeoutMs,
      limits,
      cipher,
    });
  }
  if (options.existingOnly) existingSqliteFile(config.dataDir);
  try {
    return openSqlite(config, limits, cipher, log);
  } catch (err) {
    throw dataDirFailure(err, config.dataDir);
  }
}

function openSqlite(
  config: Readonly<Config>,
  limits: { maxOpenDeadLettersPerEndpoint: number },
  cipher: FieldCipher,
  log?: StoreLogger,
): Store {
  return new SqliteStore({
    path: sqliteFile(config.dataDir),
    synchronous: config.sqliteSynchronous,
    limits,
    cipher,
    checkpoints: {
      ...DEFAULT_CHECKPOINTS,
      onFailure: (err) =>
        log?.warn(
          { err },
          "the SQLite checkpoint thread stopped; from now on commits checkpoint the WAL every 1,000 pages, as SQLite does by default, and wait for it",
        ),
      onCheckpoints: (working, err) =>
        working
          ? log?.info({}, "the SQLite checkpoint thread's checkpoints work again")
          : log?.warn(
              { err },
              "the SQLite checkpoint thread's checkpoints fail (is the disk full?); until they work again, commits checkpoint the WAL every 1,000 pages, as SQLite does by default, and wait for it",
            ),
    },
  });
}
