/** `hookline store copy`, run: loaded only when the command runs (see store.ts). */
import { accessSync, constants } from "node:fs";
import { userInfo } from "node:os";
import {
  checkPostgresUrl,
  checkSchemaName,
  resolveConfig,
  unknownIn,
  type Config,
} from "../config.js";
import { lockDataDir, type DataDirLock } from "../data-dir-lock.js";
import { ConfigError } from "../errors.js";
import { pgVariablesUsed, type PgVariable } from "../postgres-environment.js";
import { FieldCipher, keyId } from "../security/cipher.js";
import { withoutPassword } from "../start-failure.js";
import type { DestinationState } from "../store/copy/postgres-destination.js";
import {
  copySqliteToPostgres,
  type CopyProgress,
  type CopyStage,
  type CopySummary,
} from "../store/copy/sqlite-to-postgres.js";
import { MIGRATIONS } from "../store/postgres/migrations.js";
import { existingSqliteFile } from "../store/factory.js";
import { newestVersion } from "../store/newer-schema.js";
import { describeUnknown } from "../unknown-settings.js";
import { EXIT_CODE_OF, finishedAfter, type StopSignal } from "./signals.js";
import type { StoreIo } from "./store.js";

/** The options `store copy` takes. */
export interface CopyOptions {
  to: string;
  schema?: string;
  dryRun?: boolean;
}

/** The PostgreSQL schema version a copy migrates its destination to. */
const CURRENT_VERSION = newestVersion(MIGRATIONS);

/** A long copy says where it stands this often (on stderr); a short one says nothing there. */
const PROGRESS_EVERY_MS = 2_000;

/** Checks, locks the data dir, copies, and says what it did. */
export async function runCopy(
  env: Record<string, string | undefined>,
  opts: CopyOptions,
  io: StoreIo,
): Promise<void> {
  let config: Readonly<Config>;
  try {
    config = resolveConfig(env);
  } catch (err) {
    for (const u of unknownIn(env)) io.out.write(`WARNING: ${describeUnknown(u)}\n`);
    throw err;
  }
  for (const u of config.unknownSettings) io.out.write(`WARNING: ${describeUnknown(u)}\n`);
  checkPostgresUrl(opts.to, "--to", "");
  const schema = opts.schema ?? config.pgSchema;
  checkSchemaName(schema, "--schema");
  const file = existingSqliteFile(config.dataDir);
  refuseUnwritable(config.dataDir);
  // Held to the end: a hookline started on the data dir meanwhile would take messages the
  // copy never sees.
  const lock = lockForCopy(config.dataDir);
  try {
    const pgVariables = pgVariablesUsed(opts.to, env);
    await copy(
      config,
      { to: opts.to, pgVariables, schema, dryRun: opts.dryRun === true },
      file,
      io,
    );
  } finally {
    lock.release();
  }
}

/**
 * The copy only reads the store, but SQLite reads a store in WAL mode through a shared-memory
 * file it makes beside it, and the lock is a file of its own there: a user who may read the data
 * dir but not write it met SQLite's "attempt to write a readonly database", or "unable to open
 * database file", naming neither the setting nor what to do.
 */
function refuseUnwritable(dataDir: string): void {
  try {
    accessSync(dataDir, constants.W_OK);
  } catch (err) {
    // On a read-only file system no user may write it: another user would fare no better.
    const [why, remedy] =
      (err as { code?: unknown }).code === "EROFS"
        ? [
            "it is on a read-only file system",
            "copy the data dir, every file in it, to a writable file system (cp -a) and run the copy with HOOKLINE_DATA_DIR there, or mount it read-write",
          ]
        : [
            `this one (${userOf()}) may not write there`,
            "run the copy as the user hookline runs as, or let this one write to the data dir",
          ];
    throw new ConfigError(
      `HOOKLINE_DATA_DIR ${dataDir} must be writable by the user running the copy, and ${why}: the copy only reads the store, but SQLite reads a store in WAL mode through a shared-memory file it makes beside it (hookline.db-shm), and the copy takes the data dir's lock (hookline.lock) as hookline does; ${remedy}; nothing was copied`,
      { cause: err },
    );
  }
}

/** This process's user, by name when it has one. */
function userOf(): string {
  const uid = process.getuid?.();
  try {
    return `${userInfo().username}, uid ${uid}`;
  } catch {
    return `uid ${uid}`;
  }
}

/** The data dir's lock, as `serve` takes it; refused with why while a hookline runs there. */
function lockForCopy(dataDir: string): DataDirLock {
  try {
    return lockDataDir(dataDir);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    throw new ConfigError(
      `HOOKLINE_DATA_DIR ${dataDir} is in use by a running hookline: stop it first (SIGTERM), so that nothing it accepts is left behind in SQLite; nothing was copied`,
      { cause: err },
    );
  }
}

/** Where the copy goes, and whether only to try it. */
interface CopyTarget {
  to: string;
  /** The PG* variables filling in what `to` leaves out (the driver reads them). */
  pgVariables: readonly PgVariable[];
  schema: string;
  dryRun: boolean;
}

async function copy(
  config: Readonly<Config>,
  target: CopyTarget,
  file: string,
  io: StoreIo,
): Promise<void> {
  const { to, pgVariables, schema, dryRun } = target;
  const where = `PostgreSQL ${withoutPassword(to)}, schema ${schema}`;
  const keys = config.encryptionKey
    ? `HOOKLINE_ENCRYPTION_KEY (key ${keyId(config.encryptionKey)})${config.encryptionOldKeys.length > 0 ? " and HOOKLINE_ENCRYPTION_OLD_KEYS" : ""}`
    : null;
  // Stopped before it writes, it ends at once: there is nothing to roll back, and its checks may
  // wait long on PostgreSQL. Once it writes, it ends its step, rolls back, and says so. As it
  // finishes, the copy is all but done: it goes on to the end, saying so.
  let stage: CopyStage = "checking";
  let stopSignal: StopSignal | null = null;
  const { signals } = io;
  const forget = signals?.onStop(
    (signal) => {
      if (stage === "checking") {
        io.err.write(`hookline: ${stoppedBeforeWriting(signal, schema)}\n`);
        signals.exit(EXIT_CODE_OF[signal]);
      }
      if (stage === "finishing") io.err.write(`hookline: ${finishingAnyway(signal)}\n`);
      stopSignal ??= signal;
    },
    (signal) => stoppedAtOnce(signal, stage, schema),
  );
  io.out.write(
    dryRun
      ? `dry run: checking a copy of ${file} to ${where}; nothing is written\n`
      : `copying ${file} to ${where}\n`,
  );
  const summary = await copySqliteToPostgres({
    sqliteFile: file,
    to: { connectionString: to, schema, queryTimeoutMs: config.pgQueryTimeoutMs },
    pgVariables,
    cipher: new FieldCipher(config.encryptionKey, config.encryptionOldKeys),
    workerDeadAfterMs: config.workerDeadAfterMs,
    now: io.now,
    onProgress: progressOn(io),
    dryRun,
    onStage: (s) => (stage = s),
    stopRequested: () => stopSignal !== null,
  }).finally(() => forget?.());
  if (summary.stopped && stopSignal) {
    io.err.write(`hookline: ${stoppedSaying(stopSignal, summary, schema)}\n`);
    signals?.setExitCode(EXIT_CODE_OF[stopSignal]);
    return;
  }
  if (dryRun) io.out.write("the copy would go through, and would copy:\n");
  printCounts(summary, dryRun, io);
  if (dryRun) {
    printDryRunEnd(summary, schema, keys, io);
    return;
  }
  io.out.write(
    "every table's rows were counted again in PostgreSQL before the commit: they match\n",
  );
  io.out.write(
    keys
      ? `secrets and payloads were copied sealed as they are: start hookline on PostgreSQL with the same ${keys}, or it refuses to start\n`
      : "secrets and payloads were copied as they are, unencrypted (no HOOKLINE_ENCRYPTION_KEY)\n",
  );
  io.out.write(
    `done: start hookline with DATABASE_URL and HOOKLINE_PG_SCHEMA=${schema}, and the same admin token (HOOKLINE_ADMIN_TOKEN, or this data dir's admin-token); the SQLite store is unchanged, and starting hookline without DATABASE_URL goes back to it\n`,
  );
  // Heard too late to stop it (as it finished, or after its last batch): said, as it was asked.
  if (stopSignal) {
    io.err.write(
      `hookline: ${finishedAfter("store copy", stopSignal, "as it was finishing", "the copy is complete")}\n`,
    );
  }
}

/** Rows per table, the deliveries still to be sent and the NULs replaced, copied or to be. */
function printCounts(summary: CopySummary, dryRun: boolean, io: StoreIo): void {
  const width = Math.max(...summary.tables.map((t) => t.table.label.length));
  for (const { table, rows } of summary.tables) {
    io.out.write(`  ${`${table.label}:`.padEnd(width + 1)} ${rows}\n`);
  }
  const recovered =
    summary.recovered > 0
      ? ` (${summary.recovered} of them in flight when hookline stopped: ${dryRun ? "they would be due" : "due"} again, as a restart would leave them)`
      : "";
  io.out.write(`  deliveries still to be sent: ${summary.pending}${recovered}\n`);
  const nuls = summary.nulsReplaced;
  if (nuls > 0) {
    const values = `${nuls} text value${nuls === 1 ? "" : "s"}`;
    io.out.write(
      dryRun
        ? `${values} ${nuls === 1 ? "holds" : "hold"} NUL characters, which PostgreSQL cannot store: each NUL would be copied as U+FFFD, as hookline now records one in a receiver's answer\n`
        : `${values} held NUL characters, which PostgreSQL cannot store: each NUL was copied as U+FFFD, as hookline now records one in a receiver's answer\n`,
    );
  }
}

/** What the destination would become, the keys it would need, and that nothing was written. */
function printDryRunEnd(
  summary: CopySummary,
  schema: string,
  keys: string | null,
  io: StoreIo,
): void {
  const { exists, version } = summary.destination;
  const made = !exists
    ? `the schema ${schema} does not exist: the copy would make it and migrate it to version ${CURRENT_VERSION}`
    : version === null
      ? `the schema ${schema} exists without hookline's tables: the copy would migrate it to version ${CURRENT_VERSION}`
      : version < CURRENT_VERSION
        ? `the schema ${schema} holds no hookline data, at version ${version}: the copy would migrate it to version ${CURRENT_VERSION}`
        : `the schema ${schema} holds no hookline data, at this hookline's version (${CURRENT_VERSION})`;
  io.out.write(`${made}\n`);
  io.out.write(
    keys
      ? `secrets and payloads would be copied sealed as they are: start hookline on PostgreSQL with the same ${keys}\n`
      : "secrets and payloads would be copied as they are, unencrypted (no HOOKLINE_ENCRYPTION_KEY)\n",
  );
  io.out.write(
    "dry run: nothing was written to PostgreSQL, and the SQLite store is unchanged; to copy, run the same command without --dry-run, hookline still stopped\n",
  );
}

/** Progress lines on stderr, one every PROGRESS_EVERY_MS at most, none in a copy shorter. */
function progressOn(io: StoreIo): (p: CopyProgress) => void {
  let last = io.now();
  return (p) => {
    const now = io.now();
    if (now - last < PROGRESS_EVERY_MS) return;
    last = now;
    io.err.write(`hookline: copying ${p.table.label}: ${p.copied} of ${p.total}\n`);
  };
}

const AGAIN = "run `hookline store copy` again to copy";

/** A signal heard as the copy finishes, which it does: stopping then would only roll it back. */
function finishingAnyway(signal: StopSignal): string {
  return `store copy heard ${signal} as it was finishing (counting the rows again in PostgreSQL, committing, gathering statistics): it finishes rather than stop; another signal, a second or more from now, ends it at once`;
}

/** A copy stopped before its first write. */
function stoppedBeforeWriting(signal: StopSignal, schema: string): string {
  return `store copy stopped by ${signal} before writing anything: nothing was copied, the PostgreSQL schema "${schema}" is as it was, and the SQLite store is unchanged`;
}

/** What a copy that stopped as asked, having rolled back, left. */
function stoppedSaying(signal: StopSignal, summary: CopySummary, schema: string): string {
  const { table } = summary.stopped!;
  const where = table
    ? `while copying ${table.label}: nothing was copied, as the rows written so far were rolled back (the copy is one transaction)`
    : "once the PostgreSQL schema was migrated, before copying: nothing was copied";
  return `store copy stopped by ${signal} ${where}; ${migrated(summary.destination, schema)}; the SQLite store is unchanged; ${AGAIN}`;
}

/** The destination a stopped copy leaves: migrated, and without hookline data. */
function migrated({ exists, version }: DestinationState, schema: string): string {
  if (!exists) {
    return `the copy made the PostgreSQL schema "${schema}" and migrated it to version ${CURRENT_VERSION}, and it holds no hookline data`;
  }
  if (version !== CURRENT_VERSION) {
    return `the copy migrated the PostgreSQL schema "${schema}" to version ${CURRENT_VERSION}, and it holds no hookline data`;
  }
  return `the PostgreSQL schema "${schema}" is as it was`;
}

/** What a copy ended at once in `stage` leaves (by the second signal: the first ends its step). */
function stoppedAtOnce(signal: StopSignal, stage: CopyStage, schema: string): string {
  switch (stage) {
    case "checking":
      return stoppedBeforeWriting(signal, schema);
    case "migrating":
      return `store copy stopped at once by ${signal} while migrating the PostgreSQL schema "${schema}": nothing was copied, and the SQLite store is unchanged; each migration commits on its own, so the schema may have been made and migrated part of the way, without hookline data; ${AGAIN}`;
    case "copying":
      return `store copy stopped at once by ${signal} while copying: nothing was copied, as PostgreSQL rolls back the copy's transaction when its connection closes, leaving the schema "${schema}" without hookline data; the SQLite store is unchanged; ${AGAIN}`;
    case "finishing":
      return `store copy stopped at once by ${signal} as it finished: the PostgreSQL schema "${schema}" holds either the whole copy or none of it (\`hookline store copy --dry-run\` tells which: it refuses a schema that holds hookline data); the SQLite store is unchanged`;
  }
}
