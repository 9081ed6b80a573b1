/**
 * `hookline dlq replay-bulk` follows its job until it ends, and Ctrl-C is how an operator stops a
 * command: one watching a replay go wrong would press it and think the replays stopped. They do
 * not — the job runs in hookline — and with --json its id had not even been printed. On a signal
 * the command says the job carries on, and how to follow or cancel it.
 */
import { createServer } from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { spawnCli } from "../support/built-cli.js";
import { recordsWhoseReplaysHang, type JobOut } from "../support/dlq.js";
import type { TestHookline } from "../support/hookline.js";

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
async function interrupted(
  args: string[],
  signal: NodeJS.Signals,
): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const run = spawnCli(args, { HOOKLINE_URL: h.url, HOOKLINE_TOKEN: h.token });
  // The progress bar's first line: the job is made and being followed.
  run.child.stdout!.on("data", () => run.out().includes("[") && run.child.kill(signal));
  const code = await run.exited;
  return { code, stdout: run.out(), stderr: run.err() };
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
  const again = spawnCli(["dlq", "job", jobId!, "--watch", "--json"], {
    HOOKLINE_URL: `http://127.0.0.1:${port}`,
    HOOKLINE_TOKEN: h.token,
  });
  void lookedAtJob.then(() => again.child.kill("SIGTERM"));
  const againCode = await again.exited;
  relay.closeAllConnections();
  await new Promise<void>((r) => relay.close(() => r()));
  expect(again.err()).toContain(`job ${jobId} carries on in hookline`);
  expect(againCode).toBe(143);

  await h.api("POST", `/api/v1/dlq/replay/${jobId}/cancel`);
}, 60_000);
