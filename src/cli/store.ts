/** `hookline store …`: chores on a stopped hookline's store, run on the store directly. */
import { Command } from "commander";
import type { StopCleanly } from "./signals.js";
import type { CopyOptions } from "./store-copy.js";

/** Where the command writes: the summary on `out`, progress on `err`; `now` paces the progress. */
export interface StoreIo {
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
  now: () => number;
  /** How a copy run as a process of its own stops; without, a signal ends it as any other. */
  signals?: StopSignals;
}

/** What `store copy` needs of its process to stop on Ctrl-C, SIGTERM or SIGHUP. */
export interface StopSignals {
  /** Hears Ctrl-C, SIGTERM and SIGHUP (see StopCleanly). */
  onStop: StopCleanly;
  /** Ends the process now. */
  exit(code: number): never;
  setExitCode(code: number): void;
}

/** The `store` command group. */
export function storeCommand(env: Record<string, string | undefined>, io: StoreIo) {
  const store = new Command("store").description(
    "copy a stopped hookline's SQLite store to PostgreSQL",
  );
  store
    .command("copy")
    .description(
      "copy everything in the SQLite store of HOOKLINE_DATA_DIR (applications, endpoints and their secrets, event types, messages, attempts, deliveries still to be sent, dead letters, replay jobs, tokens, idempotency keys, alerts) into an empty PostgreSQL schema, migrated first, in one transaction: stopped (Ctrl-C) or killed, it leaves none of its rows there; the SQLite store is only read. Stop hookline first; then start it with DATABASE_URL, the schema and the same encryption keys",
    )
    .requiredOption("--to <url>", "the PostgreSQL database, as a postgres:// URL")
    .option(
      "--schema <name>",
      "the schema to copy into; it must hold no hookline data (default: HOOKLINE_PG_SCHEMA or hookline)",
    )
    .option(
      "--dry-run",
      "run every check the copy runs before it writes (the data dir writable by this user, hookline stopped, the store's version, tables and keys, the database's encoding, the role's rights to make the schema, the schema without hookline data or a running hookline) and say what it would copy, writing nothing to PostgreSQL or to the SQLite store; it exits as the copy would, 0 when it would go through. Run it first",
    )
    .action(async (opts: CopyOptions) => {
      // The copy and both storage drivers load only when it runs, not with every command.
      const { runCopy } = await import("./store-copy.js");
      await runCopy(env, opts, io);
    });
  return store;
}
