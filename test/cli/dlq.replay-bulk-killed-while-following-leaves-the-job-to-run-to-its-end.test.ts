/**
 * `hookline dlq replay-bulk` starts a job in hookline and then only follows it. Killed while it
 * follows (kill -9, an SSH session cut, the OOM killer), it gets no chance to say so, as it does on
 * Ctrl-C (dlq.ctrl-c-while-following-…): the job must run to its end all the same, every record
 * replayed once, and the command's help must say that stopping it does not stop the job.
 */
import { createServer } from "node:http";
import { expect, it } from "vitest";
import { dlqCommand } from "../../src/cli/dlq.js";
import { spawnCli } from "../support/built-cli.js";
import { useCleanup } from "../support/cleanup.js";
import {
  anEndpoint,
  deadLetters,
  PATIENT_BREAKER,
  untilJob,
  type RecordOut,
} from "../support/dlq.js";
import { startHookline } from "../support/hookline.js";

const cleanup = useCleanup();

it("the job replays every record once after the command following it is killed", async () => {
  let up = false;
  const received: string[] = [];
  const receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (up) received.push(String(req.headers["webhook-id"]));
      res.writeHead(up ? 200 : 503).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
  cleanup.push(() => new Promise((r) => receiver.close(() => r())));
  const { port } = receiver.address() as { port: number };
  const h = await startHookline({ overrides: { breaker: PATIENT_BREAKER } });
  cleanup.push(() => h.stop());
  const ep = await anEndpoint(h, `http://127.0.0.1:${port}/hooks`);
  const records = await deadLetters(h, ep, 8);
  up = true;

  // Two a second: the job runs for seconds after the kill.
  const run = spawnCli(
    ["dlq", "replay-bulk", "--app", ep.appId, "--canary", "0", "--rate", "2", "--interval", "100"],
    { HOOKLINE_URL: h.url, HOOKLINE_TOKEN: h.token },
  );
  // Killed once it follows the job: its progress bar is out.
  await new Promise<void>((resolve) => {
    const look = () => {
      if (run.out().includes("[")) {
        run.child.stdout!.off("data", look);
        resolve();
      }
    };
    run.child.stdout!.on("data", look);
    void run.exited.then(() => resolve());
  });
  run.child.kill("SIGKILL");
  expect(await run.exited, run.out() + run.err()).toBe("SIGKILL");
  const jobId = /job (job_\w+):/.exec(run.out())?.[1];
  expect(jobId, run.out()).toBeDefined();
  const before = (await h.api<{ state: string }>("GET", `/api/v1/dlq/replay/${jobId}`)).body;
  expect(before.state).toBe("running");

  const job = await untilJob(h, jobId!, (j) => j.state === "completed", 30_000);
  expect(job.progress).toMatchObject({ total: 8, succeeded: 8, failed: 0, outstanding: 0 });
  const after = await h.api<{ data: RecordOut[] }>(
    "GET",
    `/api/v1/dlq?endpoint_id=${ep.endpointId}&limit=250`,
  );
  expect(after.body.data.map((r) => [r.id, r.state, r.replayCount]).sort()).toEqual(
    records.map((r) => [r.id, "resolved", 1]).sort(),
  );
  expect(received.sort()).toEqual(records.map((r) => r.messageId).sort());
}, 60_000);

it("says in its help that stopping the command leaves the job running, and how to stop the job", () => {
  const cmd = dlqCommand(
    { url: "http://127.0.0.1:9", token: "hl_test_token_0123456789abcdef" },
    { out: { write: () => true }, now: () => 0, sleep: async () => {}, setExitCode: () => {} },
  );
  const replayBulk = cmd.commands.find((c) => c.name() === "replay-bulk")!;
  expect(replayBulk.description()).toContain(
    "stopping the command (Ctrl-C) or killing it stops only the following: the job carries on in hookline (`hookline dlq cancel <id>` stops it)",
  );
});
