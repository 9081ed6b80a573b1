/**
 * Errors that stop start-up, said in terms of the setting to change: a port in use is about
 * HOOKLINE_PORT, a data dir that cannot be written about HOOKLINE_DATA_DIR, an unreachable
 * database about DATABASE_URL. Node's own messages name none of them.
 */
import type { Config } from "./config.js";
import { ConfigError, StoreUnavailableError } from "./errors.js";

function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "";
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The data dir (or the SQLite file in it) could not be created, opened or migrated. */
export function dataDirFailure(err: unknown, dataDir: string): unknown {
  if (err instanceof ConfigError) return err;
  const cause = err instanceof StoreUnavailableError && err.cause ? err.cause : err;
  const reasons: Record<string, string> = {
    EEXIST: "it is a file, not a directory",
    ENOTDIR: "a part of the path is a file, not a directory",
    EACCES: "permission denied",
    EPERM: "permission denied",
    EROFS: "the file system is read-only",
    ENOSPC: "no space left on the device",
    SQLITE_CANTOPEN: "the database file cannot be opened",
    SQLITE_READONLY: "the database file is read-only",
    SQLITE_FULL: "no space left on the device",
  };
  const reason = reasons[codeOf(cause)] ?? messageOf(cause);
  return new ConfigError(`HOOKLINE_DATA_DIR ${dataDir} cannot be used: ${reason}`, { cause: err });
}

/** The API could not listen where it was told to. */
export function listenFailure(err: unknown, config: Readonly<Config>): unknown {
  const { host, port } = config;
  switch (codeOf(err)) {
    case "EADDRINUSE":
      return new ConfigError(
        `HOOKLINE_PORT ${port} is in use on ${host}:${port}: another process listens there; stop it or choose another port`,
        { cause: err },
      );
    case "EACCES":
      return new ConfigError(
        `HOOKLINE_PORT ${port} needs privileges this process lacks (ports below 1024); choose a port above 1023`,
        { cause: err },
      );
    case "EADDRNOTAVAIL":
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EAI_NONAME":
      return new ConfigError(
        `HOOKLINE_HOST ${host} is not an address of this machine (${codeOf(err)}); 127.0.0.1 listens on loopback only, 0.0.0.0 on every interface`,
        { cause: err },
      );
    default:
      return err;
  }
}

/** The store could not be reached at start: for PostgreSQL, says which server was asked. */
export function storeFailure(err: unknown, config: Readonly<Config>): unknown {
  if (!config.databaseUrl || !(err instanceof StoreUnavailableError)) return err;
  // The store's message names only a code (3D000, 28P01…); the server's own words say what it is.
  const server = err.cause instanceof Error ? err.cause.message : "";
  const why = server && !err.message.includes(server) ? `${err.message}: ${server}` : err.message;
  return new StoreUnavailableError(
    `cannot use PostgreSQL at ${withoutPassword(config.databaseUrl)} (DATABASE_URL): ${why}`,
    { cause: err },
  );
}

function withoutPassword(raw: string): string {
  const url = new URL(raw);
  url.password = "";
  url.search = "";
  return url.toString();
}
