/**
 * `hookline dlq replay-bulk --json` prints nothing until its job ends. When hookline went away
 * while it followed the job (a restart, a deploy), the command failed with "cannot reach
 * hookline" alone: the job, which carries on after the restart, was named nowhere. The message
 * names it, and how to follow or cancel it.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { dlqCommand } from "../../src/cli/dlq.js";
import { recordsWhoseReplaysHang } from "../support/dlq.js";
import type { TestHookline } from "../support/hookline.js";

let h: TestHookline;
let appId: string;
let answerHeld: () => void;
let closeReceiver: () => Promise<void>;

beforeAll(async () => {
  ({ h, appId, answerHeld, closeReceiver } = await recordsWhoseReplaysHang());
});
afterAll(() => closeReceiver());

it("replay-bulk --json, losing hookline while it follows the job, names the job", async () => {
  let out = "";
  let stopped = false;
  const cmd = dlqCommand(
    { url: h.url, token: h.token },
    {
      out: { write: (s: string) => (out += s) },
      now: () => Date.now(),
      // hookline goes away between two looks at the job.
      sleep: async () => {
        if (stopped) return;
        stopped = true;
        answerHeld();
        await h.stop();
      },
      setExitCode: () => {},
    },
  );
  const args = ["replay-bulk", "--app", appId, "--canary", "0", "--json"];
  const message = await cmd.parseAsync(args, { from: "user" }).then(
    () => "the command succeeded",
    (e: unknown) => (e as Error).message,
  );
  expect(out).toBe("");
  const jobId = /job (job_\w+) carries on/.exec(message)?.[1];
  expect(jobId).toBeDefined();
  expect(message).toBe(
    `cannot reach hookline at ${h.url} (--url or HOOKLINE_URL): connect ECONNREFUSED ${h.url.slice(7)}; ` +
      `job ${jobId} carries on in hookline: ` +
      `\`hookline dlq job ${jobId} --watch\` follows it again, \`hookline dlq cancel ${jobId}\` stops it`,
  );
}, 30_000);

it("job --watch of a job that is not there says only that", async () => {
  const cmd = dlqCommand(
    { url: "http://127.0.0.1:9", token: "hl_test_token_0123456789abcdef" },
    { out: { write: () => true }, now: () => 0, sleep: async () => {}, setExitCode: () => {} },
  );
  const message = await cmd.parseAsync(["job", "job_nothere", "--watch"], { from: "user" }).then(
    () => "the command succeeded",
    (e: unknown) => (e as Error).message,
  );
  expect(message).not.toContain("carries on");
});
