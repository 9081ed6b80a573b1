import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { cliEnv } from "../support/built-cli.js";
import { within } from "../support/within.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** Live child processes of `parent` running hookline's built CLI. */
function hooklineChildren(parent: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8");
      if (ppid === parent && cmd.includes("dist/cli/main.js")) found.push(Number(name));
    } catch {
      // It ended while we looked.
    }
  }
  return found;
}

const alive = (pid: number) => existsSync(`/proc/${pid}`);

// Interrupting a run (Ctrl-C; here SIGINT to the bench alone, as `kill -INT` sends it) must not
// leave hookline running or its data dirs behind: a full run's are a gigabyte and more.
describe("an interrupted bench run", () => {
  const tmp = mkdtempSync(join(tmpdir(), "hookline-bench-interrupt-"));
  const stray: number[] = [];
  afterAll(() => {
    for (const pid of stray) if (alive(pid)) process.kill(pid, "SIGKILL");
    rmSync(tmp, { recursive: true, force: true });
  });

  it("kills the hookline it started and removes the data dirs it made", async () => {
    const bench = spawn(
      process.execPath,
      ["--import", "tsx", "bench/run.ts", "--quick", "--no-build", "--only", "lag"],
      { cwd: root, env: cliEnv({ TMPDIR: tmp }), stdio: ["ignore", "ignore", "pipe"] },
    );
    let err = "";
    bench.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    const exited = new Promise((r) => bench.once("exit", r));
    // Wait for a hookline of the run with its data dir, then interrupt the bench.
    let children: number[] = [];
    for (let i = 0; i < 6000 && children.length === 0; i++) {
      if (bench.exitCode !== null) throw new Error(`the bench ended early:\n${err}`);
      children = hooklineChildren(bench.pid!);
      if (children.length === 0) await new Promise((r) => setTimeout(r, 10));
    }
    expect(children.length, err).toBeGreaterThan(0);
    stray.push(...children);
    expect(readdirSync(tmp).filter((d) => d.startsWith("hookline-bench-"))).not.toEqual([]);
    bench.kill("SIGINT");
    await within(30_000, "the interrupted bench to end", exited);
    for (const pid of children) {
      for (let i = 0; i < 1000 && alive(pid); i++) await new Promise((r) => setTimeout(r, 10));
      expect(alive(pid), `hookline ${pid} still runs`).toBe(false);
    }
    expect(readdirSync(tmp).filter((d) => d.startsWith("hookline-bench-"))).toEqual([]);
  }, 120_000);
});
