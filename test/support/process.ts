/**
 * hookline as a real child process (the built `hookline serve`, see built.ts), for tests that
 * kill it, stop it, or restart it on the same data dir.
 */
import type { Cleanup } from "./cleanup.js";
import { spawnCli, type CliRun } from "./built-cli.js";

/** A `hookline serve` that is ready: a {@link CliRun} (output() is stdout and stderr together). */
export interface HooklineProcess extends CliRun {
  /** Where its API listens; empty for a worker, which serves only its health and metrics. */
  url: string;
}

export const TEST_TOKEN = "hl_test_token_0123456789abcdef";

/**
 * `hookline serve` on `dataDir` with the tests' settings (any port, the test token, loopback
 * targets allowed, warnings and worse logged), `env` over them, started and not waited for. As
 * every command spawnCli runs, it sees none of the test run's HOOKLINE_* variables or DATABASE_URL.
 */
export function spawnServe(
  dataDir: string,
  env: Record<string, string> = {},
  args: string[] = [],
): CliRun {
  return spawnCli(["serve", ...args], {
    HOOKLINE_PORT: "0",
    HOOKLINE_DATA_DIR: dataDir,
    HOOKLINE_ADMIN_TOKEN: TEST_TOKEN,
    HOOKLINE_ALLOW_PRIVATE_TARGETS: "1",
    HOOKLINE_LOG_LEVEL: "warn",
    ...env,
  });
}

/**
 * Starts `hookline serve` (plain, as operators run it, for role all; with `--role` for api or
 * worker) and resolves once it is ready: listening (roles all and api) or delivering (role
 * worker, which serves only its health and metrics; its `url` is empty). Fails with what it
 * printed if it has not within `startWithinMs`: under the tests' own 30 s, so that a hung start
 * says so. A soak that restarts processes under load gives more (a fleet's worker once took
 * more than 20 s to start, beside the other soaks on a slow host).
 */
export async function spawnHookline(
  dataDir: string,
  env: Record<string, string> = {},
  role: "all" | "api" | "worker" = "all",
  startWithinMs = 25_000,
): Promise<HooklineProcess> {
  const run = spawnServe(dataDir, env, role === "all" ? [] : ["--role", role]);
  const { child, exited, output } = run;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left running: nothing would stop it after the test (a worker would go on beating
      // against a dropped schema, loading the machine the next tests run on).
      child.kill("SIGKILL");
      reject(new Error(`hookline did not start:\n${output()}`));
    }, startWithinMs);
    const check = () => {
      // Listening on one address with no public URL, the banner's first line is the URL;
      // otherwise a line of its own gives it.
      const m = /listening on (http:\/\/\S+)|^ {2}URL: +(\S+)$/m.exec(output());
      if (m || (role === "worker" && /is delivering/.test(output()))) {
        clearTimeout(timer);
        resolve(m?.[1] ?? m?.[2] ?? "");
      }
    };
    child.stdout!.on("data", check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`hookline exited (${code}) before starting:\n${output()}`));
    });
  });
  return { ...run, url };
}

/**
 * Sends `proc` `signal` and waits for it to end. Harmless if it has ended already (a test that
 * stopped it itself): Node sends no signal to a child that exited.
 */
export async function stop(
  proc: Pick<CliRun, "child" | "exited">,
  signal: NodeJS.Signals = "SIGTERM",
): Promise<void> {
  proc.child.kill(signal);
  await proc.exited;
}

/** Has `cleanup` {@link stop} `proc` with `signal`. */
export function stopAfter<P extends Pick<CliRun, "child" | "exited">>(
  cleanup: Cleanup,
  proc: P,
  signal: NodeJS.Signals = "SIGTERM",
): P {
  cleanup.push(() => stop(proc, signal));
  return proc;
}

/**
 * {@link spawnHookline}, stopped by `cleanup` with SIGTERM. Register `dataDir`'s removal on
 * `cleanup` first, so that hookline stops before its data dir goes.
 */
export async function runHookline(
  cleanup: Cleanup,
  dataDir: string,
  env: Record<string, string> = {},
  role: "all" | "api" | "worker" = "all",
): Promise<HooklineProcess> {
  return stopAfter(cleanup, await spawnHookline(dataDir, env, role));
}

/** A JSON call to a hookline process with the test token. */
export async function call<T = Record<string, unknown>>(
  url: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TEST_TOKEN}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

/**
 * Makes application `acme` with one endpoint at `endpointUrl` in a hookline process and posts one
 * message to it; resolves with the message's id (its first request may still be on its way).
 */
export async function postOneMessage(url: string, endpointUrl: string): Promise<string> {
  await call(url, "POST", "/api/v1/app", { name: "acme", uid: "acme" });
  await call(url, "POST", "/api/v1/app/acme/endpoint", { url: endpointUrl, uid: "main" });
  const msg = await call<{ id: string }>(url, "POST", "/api/v1/app/acme/msg", {
    eventType: "e",
    payload: {},
  });
  return msg.body.id;
}
