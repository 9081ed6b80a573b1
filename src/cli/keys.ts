/** `hookline keys …`: encryption-at-rest chores that work on the store directly. */
import { statSync } from "node:fs";
import { Command, InvalidArgumentError } from "commander";
import { resolveConfig } from "../config.js";
import { ConfigError } from "../errors.js";
import { keyId } from "../security/cipher.js";
import { rotateKeys } from "../security/rotate.js";
import { openStore, sqliteFile } from "../store/factory.js";
import { storeFailure } from "../start-failure.js";

/** --batch-size: a whole number of rows, at least 1 (a typo must not reach the query as NaN). */
function rowsPerBatch(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new InvalidArgumentError("must be a whole number, at least 1");
  return n;
}

/** No file at `path`; other failures (a file in the path, no access) are openStore's to name. */
function missing(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) === undefined;
  } catch {
    return false;
  }
}

/** The `keys` command group. */
export function keysCommand(env: Record<string, string | undefined>, out: NodeJS.WritableStream) {
  const keys = new Command("keys").description("encryption of secrets and payloads at rest");
  keys
    .command("rotate")
    .description(
      "re-encrypt every stored secret, payload and idempotency answer with HOOKLINE_ENCRYPTION_KEY (old keys in HOOKLINE_ENCRYPTION_OLD_KEYS)",
    )
    .option("--batch-size <n>", "rows per transaction", rowsPerBatch, 500)
    .action(async (opts: { batchSize: number }) => {
      const config = resolveConfig(env);
      // Opening SQLite makes the file if it is missing: rotating a new, empty store (a typo, or
      // ./data of another directory) would end in "done" and tell the operator to remove keys
      // the real store still needs.
      if (!config.databaseUrl && missing(sqliteFile(config.dataDir))) {
        throw new ConfigError(
          `HOOKLINE_DATA_DIR ${config.dataDir} holds no hookline store (no hookline.db): set it to the data dir of the hookline whose keys to rotate`,
        );
      }
      const store = openStore(config);
      try {
        await store.verifySealing().catch((err: unknown) => {
          throw storeFailure(err, config);
        });
        const current = config.encryptionKey ? `key ${keyId(config.encryptionKey)}` : "plaintext";
        out.write(`re-encrypting with ${current}\n`);
        const totals = await rotateKeys(store, { batchSize: opts.batchSize });
        for (const [table, t] of Object.entries(totals)) {
          out.write(`  ${table}: ${t.rewritten} rewritten of ${t.scanned}\n`);
        }
        out.write("done: the old keys may now be removed from HOOKLINE_ENCRYPTION_OLD_KEYS\n");
      } finally {
        await store.close();
      }
    });
  return keys;
}
