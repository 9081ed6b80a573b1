/**
 * hookline as a real child process (the built `hookline serve`, see built.ts), for tests that
 * kill it, stop it, or restart it on the same data dir.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Cleanup } from "./cleanup.js";
import { builtCommand } from "./built.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

export interface HooklineProcess {
  url: string;
  child: ChildProcess;
  /** Resolves with the exit code (or the signal's name) when the process ends. */
  exited: Promise<number | string>;
  output(): string;
}

export const TEST_TOKEN = "hl_test_token_0123456789abcdef";

/** `hookline serve` with the tests' settings, started and not waited for. */
export function spawnServe(
  dataDir: string,
  env: Record<string, string> = {},
  args: string[] = [],
): Omit<HooklineProcess, "url"> {
  const child = spawn(process.execPath, [builtCommand(), "serve", ...args], {
    cwd: root,
    env: {
      ...process.env,
      HOOKLINE_PORT: "0",
      HOOKLINE_DATA_DIR: dataDir,
      HOOKLINE_ADMIN_TOKEN: TEST_TOKEN,
      HOOKLINE_ALLOW_PRIVATE_TARGETS: "1",
      HOOKLINE_LOG_LEVEL: "warn",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  // 'close', not 'exit': the process may have ended before its last output was read, and a test
  // reading output() once it has exited must see all of it.
  const exited = new Promise<number | string>((resolve) =>
    child.on("close", (code, signal) => resolve(code ?? signal ?? "unknown")),
  );
  return { child, exited, output: () => out };
}

/**
 * Starts `hookline serve` and resolves once it is ready: listening (roles all and api) or
 * delivering (role worker, which serves only its health and metrics; its `url` is empty). Fails
 * with what it printed if it has not within `startWithinMs`: under the tests' own 30 s, so that a
 * hung start says so. A soak that restarts processes under load gives more (a fleet's worker once
 * took more than 20 s to start, beside the other soaks on a slow host).
 */
export async function spawnHookline(
  dataDir: string,
  env: Record<string, string> = {},
  role: "all" | "api" | "worker" = "all",
  startWithinMs = 25_000,
): Promise<HooklineProcess> {
  const { child, exited, output } = spawnServe(dataDir, env, ["--role", role]);
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
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`hookline exited before starting:\n${output()}`));
    });
  });
  return { url, child, exited, output };
}

/**
 * Has `cleanup` send `proc` `signal` and wait for it to end. Harmless if it has ended already (a
 * test that stopped it itself): Node sends no signal to a child that exited.
 */
export function stopAfter<P extends Pick<HooklineProcess, "child" | "exited">>(
  cleanup: Cleanup,
  proc: P,
  signal: NodeJS.Signals = "SIGTERM",
): P {
  cleanup.push(async () => {
    proc.child.kill(signal);
    await proc.exited;
  });
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
