/** `hookline keys …`: encryption-at-rest chores that work on the store directly. */
import { Command, InvalidArgumentError } from "commander";
import { resolveConfig, unknownIn, type Config } from "../config.js";
import { keyId } from "../security/cipher.js";
import { rotateKeys } from "../security/rotate.js";
import { openStore } from "../store/factory.js";
import { storeFailure } from "../start-failure.js";
import { describeUnknown } from "../unknown-settings.js";

/**
 * --batch-size: a whole number of rows, at least 1 (a typo must not reach the query as NaN), and
 * one a number holds exactly (1e20 reached SQLite as a float it refuses).
 */
function rowsPerBatch(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new InvalidArgumentError("must be a whole number, at least 1");
  if (!Number.isSafeInteger(n))
    throw new InvalidArgumentError(`must be at most ${Number.MAX_SAFE_INTEGER}`);
  return n;
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
      // As serve warns: a misspelt setting here leaves a key out, or names another store. Also
      // when a value is refused, as serve does: a misspelt variable is often why
      // (HOOKLINE_DATABASE_URL leaves a worker's HOOKLINE_ROLE without a database).
      let config: Readonly<Config>;
      try {
        config = resolveConfig(env);
      } catch (err) {
        for (const u of unknownIn(env)) out.write(`WARNING: ${describeUnknown(u)}\n`);
        throw err;
      }
      for (const u of config.unknownSettings) out.write(`WARNING: ${describeUnknown(u)}\n`);
      // Only a store that exists: rotating a new, empty one (a typo, or ./data of another
      // directory) would end in "done" and tell the operator to remove keys the real store
      // still needs.
      const store = openStore(config, undefined, { existingOnly: true });
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
        // Old keys are there to be retired only if some were set (not when plaintext rows were
        // just encrypted for the first time).
        out.write(
          config.encryptionOldKeys.length > 0
            ? "done: the old keys may now be removed from HOOKLINE_ENCRYPTION_OLD_KEYS\n"
            : `done: every stored value is ${config.encryptionKey ? `sealed with ${current}` : "plaintext"}\n`,
        );
      } finally {
        await store.close();
      }
    });
  return keys;
}
