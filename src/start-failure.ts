/**
 * Errors that stop start-up, said in terms of the setting to change: a port in use is about
 * HOOKLINE_PORT, a data dir that cannot be written about HOOKLINE_DATA_DIR, an unreachable
 * database about DATABASE_URL (and the PG* variables filling it in). Node's own messages name
 * none of them.
 */
import {
  accessSync,
  constants,
  existsSync,
  lstatSync,
  readlinkSync,
  statfsSync,
  statSync,
} from "node:fs";
import { dirname, parse, resolve, sep } from "node:path";
import type { Config } from "./config.js";
import { ConfigError, StoreUnavailableError } from "./errors.js";
import { sayPgVariables } from "./postgres-environment.js";

function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "";
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** What the file system under a data dir says of itself, to name what SQLite or Node blur. */
export interface FileSystemState {
  readOnly: boolean;
  /** Bytes this process may still write there, or null if it cannot be told. */
  freeBytes: number | null;
}

/** Less free than this where a write failed is a full disk, whatever the error's name. */
const FULL_BELOW_BYTES = 1024 * 1024;

/** The file system holding `dir` (or its nearest ancestor that exists). */
export function fileSystemState(dir: string): FileSystemState {
  let at = resolve(dir);
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  let readOnly = false;
  try {
    accessSync(at, constants.W_OK);
  } catch (err) {
    readOnly = codeOf(err) === "EROFS";
  }
  let freeBytes: number | null = null;
  try {
    const fs = statfsSync(at);
    freeBytes = fs.bavail * fs.bsize;
  } catch {
    // Unknown: the reason is left as the error gives it.
  }
  return { readOnly, freeBytes };
}

/**
 * The data dir (or the SQLite file in it) could not be created, opened, migrated or written at
 * start. `fileSystem` is asked only when the error leaves the cause open.
 */
export function dataDirFailure(
  err: unknown,
  dataDir: string,
  fileSystem: (dir: string) => FileSystemState = fileSystemState,
): unknown {
  if (err instanceof ConfigError) return err;
  const cause = err instanceof StoreUnavailableError && err.cause ? err.cause : err;
  const code = codeOf(cause);
  const reason =
    fileSystemReason(code, () => fileSystem(dataDir)) ??
    (code === "ENOENT" ? (linkToNothing(dataDir) ?? takesNoDirectories(cause)) : null) ??
    knownReason(cause);
  return new ConfigError(`HOOKLINE_DATA_DIR ${dataDir} cannot be used: ${reason}`, { cause: err });
}

/**
 * Faults named after something else: SQLite opens a file on a read-only file system read only
 * and refuses the first write as a read-only file, or, once the file is in WAL mode, cannot open
 * it at all (SQLITE_CANTOPEN: its WAL and shared-memory files cannot be made there); it reports a
 * full disk as an I/O error when its shared-memory file cannot grow (SQLITE_IOERR_SHMSIZE) and at
 * times when a write fails; and Node's recursive mkdir says ENOENT on a read-only file system.
 */
const BLURRED = new Set(["SQLITE_READONLY", "SQLITE_CANTOPEN", "ENOENT"]);

function fileSystemReason(code: string, fileSystem: () => FileSystemState): string | null {
  if (!BLURRED.has(code) && !code.startsWith("SQLITE_IOERR")) return null;
  const fs = fileSystem();
  if (fs.readOnly) return "the file system is read-only";
  if (code.startsWith("SQLITE_IOERR") && fs.freeBytes !== null && fs.freeBytes < FULL_BELOW_BYTES) {
    return "no space left on the device";
  }
  return null;
}

/**
 * The symbolic link on the way to `dir` that leads nowhere, said as such: making the data dir
 * makes every missing directory, so its ENOENT means a link whose target is not there (most often
 * a disk that is not mounted), and Node names only the directory it was making; or else a file
 * system that takes no new directories (takesNoDirectories).
 */
function linkToNothing(dir: string, depth = 0): string | null {
  const path = resolve(dir);
  const { root } = parse(path);
  let at = root;
  for (const part of path.slice(root.length).split(sep).filter(Boolean)) {
    at = resolve(at, part);
    let isLink: boolean;
    try {
      isLink = lstatSync(at).isSymbolicLink();
    } catch {
      return null;
    }
    if (!isLink || existsSync(at)) continue;
    const target = resolve(dirname(at), readlinkSync(at));
    // A link to a link to nothing: the last one is where the path ends.
    const further = depth < 8 ? linkToNothing(target, depth + 1) : null;
    return further ?? `${at} is a symbolic link to ${target}, which does not exist`;
  }
  return null;
}

/**
 * A directory that could not be made in one that is there, refused with ENOENT: a file system the
 * kernel fills (/proc) takes no new entries, and says so as if the parent were missing.
 */
function takesNoDirectories(cause: unknown): string | null {
  const { syscall, path } = (cause ?? {}) as { syscall?: unknown; path?: unknown };
  if (syscall !== "mkdir" || typeof path !== "string") return null;
  const parent = dirname(path);
  try {
    if (!statSync(parent).isDirectory()) return null;
  } catch {
    return null;
  }
  return `${path} cannot be made, as ${parent} takes no new directories`;
}

function knownReason(cause: unknown): string {
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
  return reasons[codeOf(cause)] ?? messageOf(cause);
}

/** The API could not listen where it was told to. */
export function listenFailure(err: unknown, config: Readonly<Config>): unknown {
  const { host, port } = config;
  // An IPv6 address in brackets, as in a URL: ":::8080" hides where the port starts.
  const where = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
  switch (codeOf(err)) {
    case "EADDRINUSE":
      return new ConfigError(
        `HOOKLINE_PORT ${port} is in use on ${where}: another process listens there; stop it or choose another port`,
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

/**
 * The store could not be used at start: for PostgreSQL, says which server was asked, and the PG*
 * variables that filled in what DATABASE_URL leaves out (a stray PGUSER, say); for SQLite,
 * which data dir (SQLite opens a file it may not write without a word, so the first write, in
 * whichever part starts first, is where that shows).
 */
export function storeFailure(err: unknown, config: Readonly<Config>): unknown {
  if (!(err instanceof StoreUnavailableError)) return err;
  if (!config.databaseUrl) return dataDirFailure(err, config.dataDir);
  // The store's message names only a code (3D000, 28P01…); the server's own words say what it is.
  const server = err.cause instanceof Error ? err.cause.message : "";
  const why = server && !err.message.includes(server) ? `${err.message}: ${server}` : err.message;
  return new StoreUnavailableError(
    `cannot use PostgreSQL at ${withoutPassword(config.databaseUrl)} (DATABASE_URL): ${why}${sayPgVariables("DATABASE_URL", config.pgVariables)}`,
    { cause: err },
  );
}

/** DATABASE_URL fit to print: no password, and no query (which may carry one). */
export function withoutPassword(raw: string): string {
  const url = new URL(raw);
  url.password = "";
  url.search = "";
  return url.toString();
}
