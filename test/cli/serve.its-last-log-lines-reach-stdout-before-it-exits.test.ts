/**
 * `hookline serve` logs through an asynchronous stream, whose writes run on libuv's threads, and
 * logs a line just before it exits (`stopping: …` then `stopped`, `stopping at once: …`,
 * `stopping failed`). On a loaded machine a line's write could still be waiting for a thread when
 * the process exited: pino's exit flush wrote the lines after it at once, and that one only as the
 * process ended, after them, so a log read `stopped` before `stopping: finishing deliveries in
 * flight` (and a reader that stopped reading at the exit saw no `stopping` line at all). The exit
 * now waits for the log's lines, written in order, up to a bound; and not at all once stdout has
 * failed, which would never let it go.
 */
import { execFileSync, spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { cliEnv } from "../support/built-cli.js";
import { tempDir, useCleanup } from "../support/cleanup.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const cleanup = useCleanup();

/**
 * Runs test/support/stdout-log-child.ts with `args` to its end, its stdout `stdout` (a pipe read
 * here, or one it does not read: a file descriptor, or a pipe closed at once).
 */
async function runChild(
  args: string[],
  stdout: "pipe" | "closed pipe" | number,
  env: Record<string, string> = {},
) {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "test/support/stdout-log-child.ts", ...args],
    {
      cwd: root,
      env: cliEnv(env),
      stdio: ["ignore", stdout === "closed pipe" ? "pipe" : stdout, "pipe"],
    },
  );
  cleanup.push(async () => void child.kill("SIGKILL"));
  if (stdout === "closed pipe") child.stdout!.destroy();
  let out = "";
  let err = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  // 'close', not 'exit': all of the output, what came last included.
  const code = await new Promise((r) => child.on("close", (c, signal) => r(c ?? signal)));
  return { code, out, err };
}

const messages = (out: string) =>
  out
    .split("\n")
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { msg: string }).msg);

it("writes a line still waiting for a thread before it exits, in order", async () => {
  const fifo = join(tempDir(cleanup, "hookline-exit-log-"), "hold");
  execFileSync("mkfifo", [fifo]);
  const { code, out, err } = await runChild(["held", fifo], "pipe", { UV_THREADPOOL_SIZE: "1" });
  expect(err).toBe("");
  expect(code).toBe(0);
  expect(messages(out)).toEqual(["first", "second"]);
}, 30_000);

it("does not wait for its log to exit once stdout refuses lines", async () => {
  // A full disk: the stream keeps its lines until there is room, which exit does not wait for.
  const full = openSync("/dev/full", "w");
  cleanup.push(async () => closeSync(full));
  expect((await runChild(["failed"], full)).err).toBe("at once\n");
  // A reader gone (EPIPE; a closed terminal's EIO is handled alike): the log has stopped for good.
  expect((await runChild(["failed"], "closed pipe")).err).toBe("at once\n");
}, 30_000);
