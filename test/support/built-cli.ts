/**
 * hookline's built command (`bin/hookline.js`, what operators run) as a child process (see
 * built.ts): the one way tests run it, `hookline serve` included (process.ts starts that on
 * spawnCli). Only the settings a test gives reach it, none of the test run's own HOOKLINE_*
 * variables or DATABASE_URL: a variable set where the tests run never changes what they test. A
 * test that must start hookline otherwise (in a terminal, its log to a file, the demo, the bench,
 * a script running serve's log) gives its child {@link cliEnv}, the same environment.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { builtCommand } from "./built.js";
import { adminQuery } from "./postgres.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** A running `hookline …`: its process, how it ended, and what it printed so far. */
export interface CliRun {
  child: ChildProcess;
  /** Resolves with the exit code, or the signal's name, once the process and its pipes end. */
  exited: Promise<number | string>;
  out(): string;
  err(): string;
  /** stdout and stderr together, in the order they came. */
  output(): string;
}

/**
 * How a command runs, when not as the test run's own: as another user (a uid and gid, which the
 * tests' root may take), or seeing one directory read-only, as on a read-only file system (a
 * mount of its own, which only it sees: root, and util-linux's unshare).
 */
export interface RunAs {
  uid?: number;
  gid?: number;
  readOnly?: string;
}

/** Mounts `$1` read-only over itself, then runs the rest: given to `unshare -m sh -c`. */
const READ_ONLY_MOUNT =
  'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"';

/**
 * The environment of a hookline a test starts: the test run's own (PATH, HOME, TMPDIR…) without
 * its HOOKLINE_* variables and DATABASE_URL, with `env`, the test's settings, over it.
 */
export function cliEnv(env: Record<string, string> = {}): Record<string, string> {
  const inherited: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith("HOOKLINE_") && name !== "DATABASE_URL") {
      inherited[name] = value;
    }
  }
  return { ...inherited, ...env };
}

/** Starts `hookline <args>` with `env` as its settings. */
export function spawnCli(args: string[], env: Record<string, string>, as?: RunAs): CliRun {
  const { readOnly, ...user } = as ?? {};
  const command = [process.execPath, builtCommand(), ...args];
  const [file, ...argv] = readOnly
    ? ["unshare", "-m", "sh", "-c", READ_ONLY_MOUNT, "sh", readOnly, ...command]
    : command;
  const child = spawn(file!, argv, {
    cwd: root,
    env: cliEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
    ...user,
  });
  let out = "";
  let err = "";
  let both = "";
  child.stdout!.on("data", (d: Buffer) => {
    const text = d.toString();
    out += text;
    both += text;
  });
  child.stderr!.on("data", (d: Buffer) => {
    const text = d.toString();
    err += text;
    both += text;
  });
  // 'close', not 'exit': the process may have ended before its last output was read, and a test
  // reading its output once it has exited must see all of it.
  const exited = new Promise<number | string>((resolve) =>
    child.on("close", (code, signal) => resolve(code ?? signal ?? "unknown")),
  );
  return { child, exited, out: () => out, err: () => err, output: () => both };
}

/** Runs `hookline <args>` to its end. */
export async function runCli(
  args: string[],
  env: Record<string, string>,
  as?: RunAs,
): Promise<{ code: number | string; out: string; err: string }> {
  const run = spawnCli(args, env, as);
  const code = await run.exited;
  return { code, out: run.out(), err: run.err() };
}

/**
 * Stops `run` (SIGSTOP) at a moment its session on `schema` is inside a transaction: the process
 * is frozen, its connection left open and its transaction unfinished, as a machine that went down
 * leaves them until PostgreSQL hears of it. Tries again (SIGCONT) when it stopped between two
 * transactions; fails if the command ends first.
 */
export async function freezeInTransaction(run: CliRun, schema: string): Promise<void> {
  for (;;) {
    if (run.child.exitCode !== null || run.child.signalCode !== null) {
      throw new Error(`the command ended before it could be frozen:\n${run.out()}${run.err()}`);
    }
    run.child.kill("SIGSTOP");
    const open = await adminQuery(
      `SELECT 1 FROM pg_stat_activity
       WHERE application_name = $1 AND xact_start IS NOT NULL AND pid <> pg_backend_pid()`,
      [`hookline/${schema}`],
    );
    if (open.length > 0) return;
    run.child.kill("SIGCONT");
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Whether a session of `schema`'s hookline (its application_name) matches `where`. */
async function aSessionOf(schema: string, where: string): Promise<boolean> {
  const rows = await adminQuery(
    `SELECT 1 FROM pg_stat_activity
     WHERE application_name = $1 AND pid <> pg_backend_pid() AND ${where}`,
    [`hookline/${schema}`],
  );
  return rows.length > 0;
}

/**
 * Stops `run` (SIGSTOP) inside a transaction at a moment the test chooses: once a session of
 * `schema` waits for a lock that `release` lets go of, which is then called. The session takes
 * the lock, answers the stopped process and waits, its transaction unfinished, holding what it
 * locked, as a machine that went down leaves it until PostgreSQL hears of it.
 */
export async function freezeBehindLock(
  run: CliRun,
  schema: string,
  release: () => Promise<unknown>,
): Promise<void> {
  const ended = () => {
    if (run.child.exitCode !== null || run.child.signalCode !== null) {
      throw new Error(`the command ended before it could be frozen:\n${run.out()}${run.err()}`);
    }
  };
  while (!(await aSessionOf(schema, "wait_event_type = 'Lock'"))) {
    ended();
    await new Promise((r) => setTimeout(r, 5));
  }
  run.child.kill("SIGSTOP");
  await release();
  while (!(await aSessionOf(schema, "state = 'idle in transaction'"))) {
    ended();
    await new Promise((r) => setTimeout(r, 5));
  }
}
