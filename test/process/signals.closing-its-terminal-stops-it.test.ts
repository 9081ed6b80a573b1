/**
 * `hookline serve` run in a terminal that is then closed (an SSH session that drops, a terminal
 * window shut): the kernel hangs the terminal up, hookline gets SIGHUP and stops as documented,
 * though its log lines can no longer be written (EIO). Before, the first log line that failed
 * stopped it half-way, and then it hung for good retrying that line at exit, still holding its
 * port, until someone killed it.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { TEST_TOKEN } from "../support/process.js";
import { builtCommand } from "../support/built.js";
import { cliEnv } from "../support/built-cli.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const cleanup = useCleanup();

/** Whether a process (not necessarily our child) is still running: gone or a zombie is not. */
function isRunning(p: number): boolean {
  const stat = `/proc/${p}/stat`;
  if (!existsSync(stat)) return false;
  try {
    return readFileSync(stat, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}

it("stops and exits when the terminal it runs in is closed", async () => {
  expect(spawnSync("script", ["--version"]).error, "util-linux's script is needed").toBeUndefined();
  const dir = tempDir(cleanup, "hookline-hangup-");
  // `script` gives hookline a terminal of its own; `exec` makes hookline the shell's process.
  const command = `exec ${process.execPath} ${builtCommand()} serve`;
  const terminal = spawn("script", ["-qfec", command, "/dev/null"], {
    cwd: root,
    env: cliEnv({
      HOOKLINE_PORT: "0",
      HOOKLINE_DATA_DIR: dir,
      HOOKLINE_ADMIN_TOKEN: TEST_TOKEN,
      HOOKLINE_LOG_LEVEL: "info",
    }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  terminal.stdout.on("data", (d: Buffer) => (out += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`hookline did not start:\n${out}`)), 20_000);
    terminal.stdout.on("data", () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolve(m[1]!);
    });
  });
  const pid = Number(
    readFileSync(`/proc/${terminal.pid}/task/${terminal.pid}/children`, "utf8").trim(),
  );
  cleanup.push(async () => {
    if (pid && isRunning(pid)) process.kill(pid, "SIGKILL");
  });
  expect(readFileSync(`/proc/${pid}/cmdline`, "utf8")).toContain("serve");
  const health = await fetch(`${url}/api/v1/health`);
  expect(health.status).toBe(204);

  // The terminal goes away: its other end is closed, and the kernel hangs it up.
  terminal.kill("SIGKILL");
  const deadline = Date.now() + 15_000;
  while (isRunning(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  expect(isRunning(pid), "hookline is still running after its terminal was closed").toBe(false);
  await expect(fetch(`${url}/api/v1/health`)).rejects.toThrow();
}, 45_000);
