/**
 * hookline's log sent to a file (`hookline serve > hookline.log`) on a disk that fills up: its
 * writes fail until there is room again. Before, the first failed write stopped the log for good,
 * so once the disk had room the log said nothing more, not even that SQLite's checkpoints worked
 * again. Now the lines wait (bounded) and are written once a write works; and stopping while the
 * disk is still full does not wait for room. The full disk is made as the other disk-full tests
 * make it: the process's file size limit (prlimit --fsize) fails its writes with EFBIG. The log
 * file starts with a 16 MiB hole, so that the limit set at its end leaves SQLite's files alone.
 */
import { execFileSync, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync, statSync, truncateSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it, vi } from "vitest";
import { tempDir, useCleanup, type Cleanup } from "../support/cleanup.js";
import { call, TEST_TOKEN } from "../support/process.js";
import { builtCommand } from "../support/built.js";
import { cliEnv } from "../support/built-cli.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const cleanup = useCleanup();
const HOLE = 16 * 1024 * 1024;

/** Sets the process's file size limit as `soft:hard`; only the soft one moves, so it can go back up. */
const fileSizeLimit = (pid: number, limit: string) =>
  execFileSync("prlimit", ["--pid", String(pid), `--fsize=${limit}`]);

/** A loopback port nothing listens on: deliveries to it fail, and each failure is logged. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** `hookline serve` logging to `log` (appended to), started, with one endpoint that fails. */
async function serveLoggingTo(cleanup: Cleanup, dir: string, log: string) {
  const fd = openSync(log, "a");
  const child = spawn(process.execPath, [builtCommand(), "serve"], {
    cwd: root,
    env: cliEnv({
      HOOKLINE_PORT: "0",
      HOOKLINE_DATA_DIR: join(dir, "data"),
      HOOKLINE_ADMIN_TOKEN: TEST_TOKEN,
      HOOKLINE_ALLOW_PRIVATE_TARGETS: "1",
      HOOKLINE_LOG_LEVEL: "info",
    }),
    stdio: ["ignore", fd, fd],
  });
  closeSync(fd);
  const exited = new Promise<unknown>((r) => child.on("exit", r));
  cleanup.push(async () => {
    child.kill("SIGKILL");
    await exited;
  });
  const written = () => readFileSync(log).subarray(HOLE).toString();
  const url = await vi.waitFor(
    () => /listening on (http:\/\/\S+)/.exec(written())?.[1] ?? Promise.reject(new Error("")),
    { timeout: 20_000, interval: 50 },
  );
  await call(url, "POST", "/api/v1/app", { name: "acme", uid: "acme" });
  const port = await closedPort();
  const target = { url: `http://127.0.0.1:${port}/hook`, uid: "main" };
  await call(url, "POST", "/api/v1/app/acme/endpoint", target);
  const post = () => call(url, "POST", "/api/v1/app/acme/msg", { eventType: "e", payload: {} });
  /** The endpoint's attempts that hookline has recorded (their log lines are written after). */
  const attempts = async () =>
    (await call<{ data: unknown[] }>(url, "GET", "/api/v1/app/acme/attempt/endpoint/main")).body
      .data.length;
  return { pid: child.pid!, exited, written, post, attempts };
}

const failedAttempts = (text: string) => text.split('"attempt failed').length - 1;

/** hookline logging to a file that has just filled its room, with a message posted since. */
async function servingWithAFullLog() {
  const dir = tempDir(cleanup, "hookline-log-");
  const log = join(dir, "hookline.log");
  truncateSync(openAndClose(log), HOLE);
  const h = await serveLoggingTo(cleanup, dir, log);
  fileSizeLimit(h.pid, `${statSync(log).size}:unlimited`);
  expect((await h.post()).status).toBe(202);
  return h;
}

it("writes its log again, the lines it held included, once the log's disk has room", async () => {
  const h = await servingWithAFullLog();
  // Its delivery fails at once; the line saying so cannot be written. Waited for, not slept on:
  // a second's sleep on a loaded machine could end before the attempt, whose line then went to a
  // log with room, and the test passed without a line ever being held.
  await vi.waitFor(async () => expect(await h.attempts()).toBeGreaterThanOrEqual(1), {
    timeout: 10_000,
  });
  expect(failedAttempts(h.written())).toBe(0);

  fileSizeLimit(h.pid, "unlimited:unlimited");
  expect((await h.post()).status).toBe(202);
  await vi.waitFor(() => expect(failedAttempts(h.written())).toBe(2), { timeout: 10_000 });
});

it("stops without waiting for room while its log cannot be written", async () => {
  const h = await servingWithAFullLog();
  // Stopped with a line held: the failed attempt's.
  await vi.waitFor(async () => expect(await h.attempts()).toBeGreaterThanOrEqual(1), {
    timeout: 10_000,
  });
  process.kill(h.pid, "SIGTERM");
  const ended = await Promise.race([
    h.exited.then(() => true),
    new Promise((r) => setTimeout(() => r(false), 10_000)),
  ]);
  expect(ended, "hookline still running 10 s after SIGTERM").toBe(true);
});

/** Creates `path` empty and returns it. */
function openAndClose(path: string): string {
  closeSync(openSync(path, "w"));
  return path;
}
