/** `hookline keys …`: encryption-at-rest chores that work on the store directly. */
import { Command, InvalidArgumentError } from "commander";
import { resolveConfig, unknownIn, type Config } from "../config.js";
import { keyId } from "../security/cipher.js";
import { rotate, type RotatedTable, type RotationTotals } from "../security/rotate.js";
import { storeFailure } from "../start-failure.js";
import { describeUnknown } from "../unknown-settings.js";
import { EXIT_CODE_OF, finishedAfter, type StopCleanly, type StopSignal } from "./signals.js";

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

/** What `keys rotate` needs of its process besides stdout. */
export interface KeysIo {
  /** Where a long rotation says how far it is, and a stopped one what it leaves. */
  err: NodeJS.WritableStream;
  now(): number;
  /** Hears Ctrl-C, SIGTERM and SIGHUP, so that a rotation ends its batch (see StopCleanly). */
  onStop: StopCleanly;
  setExitCode(code: number): void;
}

/** A long rotation says where it stands this often (on stderr); a short one says nothing there. */
const PROGRESS_EVERY_MS = 2_000;

/**
 * The `keys` command group. Without `io` (tests calling it in-process), no progress is shown and
 * signals end the process as they would any other.
 */
export function keysCommand(
  env: Record<string, string | undefined>,
  out: NodeJS.WritableStream,
  io?: KeysIo,
) {
  const keys = new Command("keys").description("encryption of secrets and payloads at rest");
  keys
    .command("rotate")
    .description(
      "re-encrypt every stored secret, payload and idempotency answer with HOOKLINE_ENCRYPTION_KEY (old keys in HOOKLINE_ENCRYPTION_OLD_KEYS), a transaction per batch: stopped (Ctrl-C ends the batch under way) or killed, it leaves every value readable with those keys, and running it again finishes",
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
      // Loaded here, not with the CLI: the other commands do not wait for the storage drivers.
      const { openStore } = await import("../store/factory.js");
      // Only a store that exists: rotating a new, empty one (a typo, or ./data of another
      // directory) would end in "done" and tell the operator to remove keys the real store
      // still needs. A batch left hanging (the process stopped, its machine gone) holds its rows
      // locked, from hookline and from the rerun: on PostgreSQL, the server ends it after the
      // query timeout, as it does serve's (openStore).
      const store = openStore(config, undefined, { existingOnly: true });
      try {
        await store.verifySealing().catch((err: unknown) => {
          throw storeFailure(err, config);
        });
        const current = config.encryptionKey ? `key ${keyId(config.encryptionKey)}` : "plaintext";
        out.write(`re-encrypting with ${current}\n`);
        // Stopped between two batches, each a transaction of its own: what it leaves is said,
        // rather than left to guess whether the old keys may go.
        let stopSignal: StopSignal | null = null;
        const forget = io?.onStop(
          (signal) => (stopSignal ??= signal),
          (signal) =>
            `stopped at once by ${signal}: the batch under way was rolled back, and what was done before it stays so`,
        );
        const { totals, stoppedIn } = await rotate(store, {
          batchSize: opts.batchSize,
          onBatch: io && progressOn(io),
          stopRequested: () => stopSignal !== null,
        }).finally(() => forget?.());
        for (const [table, t] of Object.entries(totals) as [RotatedTable, Totals][]) {
          if (stoppedIn && t.scanned === 0 && table !== stoppedIn) continue;
          out.write(`  ${table}: ${t.rewritten} rewritten of ${t.scanned}\n`);
        }
        if (stoppedIn && stopSignal) {
          io?.err.write(`hookline: ${stoppedSaying(stopSignal, stoppedIn, config)}\n`);
          io?.setExitCode(EXIT_CODE_OF[stopSignal]);
          return;
        }
        // Old keys are there to be retired only if some were set (not when plaintext rows were
        // just encrypted for the first time).
        out.write(
          config.encryptionOldKeys.length > 0
            ? "done: the old keys may now be removed from HOOKLINE_ENCRYPTION_OLD_KEYS\n"
            : `done: every stored value is ${config.encryptionKey ? `sealed with ${current}` : "plaintext"}\n`,
        );
        // Heard during the last batch, with no batch left to stop before: said, as it was asked.
        if (stopSignal) {
          const done = finishedAfter(
            "keys rotate",
            stopSignal,
            "during its last batch",
            "the rotation is complete",
          );
          io?.err.write(`hookline: ${done}\n`);
        }
      } finally {
        await store.close();
      }
    });
  return keys;
}

type Totals = RotationTotals[RotatedTable];

/** Progress lines on stderr, one every PROGRESS_EVERY_MS at most, none in a rotation shorter. */
function progressOn(io: KeysIo): (table: RotatedTable, totals: RotationTotals) => void {
  let last = io.now();
  return (table, totals) => {
    const now = io.now();
    if (now - last < PROGRESS_EVERY_MS) return;
    last = now;
    const t = totals[table];
    io.err.write(
      `hookline: re-encrypting ${table}: ${t.scanned} looked at, ${t.rewritten} rewritten\n`,
    );
  };
}

/** What a rotation stopped by `signal` in `table` leaves, and what to do next. */
function stoppedSaying(signal: string, table: RotatedTable, config: Readonly<Config>): string {
  const keep =
    config.encryptionOldKeys.length > 0
      ? ", some sealed with the old keys: keep HOOKLINE_ENCRYPTION_OLD_KEYS as it is, and"
      : ";";
  return (
    `stopped by ${signal} while re-encrypting ${table}, between two batches: the rows rewritten ` +
    `so far stay so, and the others are as they were${keep} run \`hookline keys rotate\` again to ` +
    "finish (it passes over the rows already rewritten)"
  );
}
