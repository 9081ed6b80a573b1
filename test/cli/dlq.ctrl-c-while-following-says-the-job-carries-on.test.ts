/**
 * `hookline dlq replay-bulk` follows its job until it ends, and Ctrl-C is how an operator stops a
 * command: one watching a replay go wrong would press it and think the replays stopped. They do
 * not — the job runs in hookline — and with --json its id had not even been printed. On a signal
 * the command says the job carries on, and how to follow or cancel it.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { recordsWhoseReplaysHang, type JobOut } from "../support/dlq.js";
import type { TestHookline } from "../support/hookline.js";
import { builtCommand } from "../support/built.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

let h: TestHookline;
let appId: string;
let answerHeld: () => void;
let closeReceiver: () => Promise<void>;

beforeAll(async () => {
  ({ h, appId, answerHeld, closeReceiver } = await recordsWhoseReplaysHang());
});
afterAll(async () => {
  answerHeld();
  await h.stop();
  await closeReceiver();
});

/** Runs the built `hookline <args>`; sends `signal` once it printed something to stdout. */
function interrupted(
  args: string[],
  signal: NodeJS.Signals,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtCommand(), ...args], {
      cwd: ROOT,
      env: { ...process.env, HOOKLINE_URL: h.url, HOOKLINE_TOKEN: h.token },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (s: string) => {
      stdout += s;
      // The progress bar's first line: the job is made and being followed.
      if (stdout.includes("[")) child.kill(signal);
    });
    child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

it("Ctrl-C says the job carries on, names it, and leaves it running", async () => {
  const run = await interrupted(
    // At one replay in 100 s the job is still running when it is followed again, however slow
    // the machine: its first replay, held by the receiver, fails only at the endpoint's timeout.
    ["dlq", "replay-bulk", "--app", appId, "--canary", "0", "--rate", "0.01", "--interval", "100"],
    "SIGINT",
  );
  const jobId = /job (job_\w+):/.exec(run.stdout)?.[1];
  expect(jobId).toBeDefined();
  expect(run.stderr).toBe(
    `hookline: stopped following; job ${jobId} carries on in hookline: ` +
      `\`hookline dlq job ${jobId} --watch\` follows it again, \`hookline dlq cancel ${jobId}\` stops it\n`,
  );
  expect(run.code).toBe(130);
  const job = await h.api<JobOut>("GET", `/api/v1/dlq/replay/${jobId}`);
  expect(job.body.state).toBe("running");

  // Following it again with --json, which prints nothing until the end: the signal is sent once
  // the command has looked at the job (through a relay that sees its requests).
  let looked: () => void = () => {};
  const lookedAtJob = new Promise<void>((r) => (looked = r));
  const relay = createServer((req, res) => {
    void fetch(`${h.url}${req.url}`, { headers: { authorization: req.headers.authorization! } })
      .then(async (answer) => {
        res.writeHead(answer.status, { "content-type": "application/json" });
        res.end(await answer.text());
        looked();
      })
      .catch(() => res.writeHead(502).end());
  });
  await new Promise<void>((r) => relay.listen(0, "127.0.0.1", () => r()));
  const { port } = relay.address() as { port: number };
  const again = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [builtCommand(), "dlq", "job", jobId!, "--watch", "--json"],
      {
        cwd: ROOT,
        env: { ...process.env, HOOKLINE_URL: `http://127.0.0.1:${port}`, HOOKLINE_TOKEN: h.token },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
    void lookedAtJob.then(() => child.kill("SIGTERM"));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stderr }));
  });
  relay.closeAllConnections();
  await new Promise<void>((r) => relay.close(() => r()));
  expect(again.stderr).toContain(`job ${jobId} carries on in hookline`);
  expect(again.code).toBe(143);

  await h.api("POST", `/api/v1/dlq/replay/${jobId}/cancel`);
}, 60_000);
