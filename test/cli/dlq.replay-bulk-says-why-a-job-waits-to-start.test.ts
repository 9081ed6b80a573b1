/**
 * A job started while hookline already runs four stays scheduled until one of them ends, its
 * reason saying it waits for a free slot. Following it (`replay-bulk`, `dlq job --watch`), the
 * CLI wrote a running job's reason above the bar but not a scheduled one's: it printed
 * "scheduled to start at" a time already past, and nothing else, for as long as the four ran.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { dlqCommand } from "../../src/cli/dlq.js";
import {
  anEndpoint,
  deadLetters,
  PATIENT_BREAKER,
  untilJob,
  type JobOut,
  type TestEndpoint,
} from "../support/dlq.js";
import { holdingReceiver } from "../support/held-replay.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { runDlq } from "../support/fake-api.js";

const WAITING =
  "waiting for a free slot: hookline is running 4 replay jobs, the most it runs at once; " +
  "it starts when one of them ends";

let h: TestHookline;
let rx: Awaited<ReturnType<typeof holdingReceiver>>;
let fifth: TestEndpoint;

beforeAll(async () => {
  h = await startHookline({ overrides: { breaker: PATIENT_BREAKER } });
  rx = await holdingReceiver();
  const endpoints: TestEndpoint[] = [];
  for (let i = 0; i < 5; i++) {
    const ep = await anEndpoint(h, rx.url);
    await deadLetters(h, ep, 1);
    endpoints.push(ep);
  }
  fifth = endpoints.pop()!;
  // Four jobs whose replays the receiver holds: each runs until its replay is answered.
  rx.hold();
  for (const ep of endpoints) {
    const job = await h.api<JobOut>("POST", "/api/v1/dlq/replay", {
      endpointId: ep.endpointId,
      canarySize: 0,
    });
    expect(job.status).toBe(202);
    await untilJob(h, job.body.id, (j) => j.state === "running" && j.progress.outstanding === 1);
  }
}, 60_000);
afterAll(async () => {
  rx.answerHeld(200);
  await h.stop();
  await rx.close();
});

it("replay-bulk, following a job that waits for a free slot, says why above the bar", async () => {
  let out = "";
  let once = "";
  let looks = 0;
  const cmd = dlqCommand(
    { url: h.url, token: h.token },
    {
      out: { write: (s: string) => (out += s) },
      now: () => Date.now(),
      // Between two looks at the job: once it has said why it waits (or after 10 s, so a CLI that
      // never says fails here rather than hanging), the receiver answers, the four end and the
      // fifth runs.
      sleep: async () => {
        await new Promise((r) => setTimeout(r, 20));
        if (!out.includes(WAITING) && ++looks < 500) return;
        if (!once) {
          const jobId = /^job (job_\w+):/.exec(out)![1]!;
          once = await runDlq(h.url, ["job", jobId], Date.now(), h.token);
        }
        rx.answerHeld(200);
      },
      setExitCode: () => {},
    },
  );
  await cmd.parseAsync(["replay-bulk", "--endpoint", fifth.endpointId, "--canary", "0"], {
    from: "user",
  });
  const lines = out.trimEnd().split("\n");
  // Once, above the bar, as soon as the job says it (its first look may come before).
  expect(lines.filter((l) => l === WAITING)).toHaveLength(1);
  const said = lines.indexOf(WAITING);
  for (const line of [...lines.slice(1, said), lines[said + 1]]) {
    expect(line).toMatch(/^scheduled to start at \S+$/);
  }
  expect(lines.at(-1)).toBe("completed: 1 selected: 1 delivered, 0 failed, 0 skipped");
  // Looked at once, the job says so beside its state, as it always did.
  expect(once.trimEnd().split("\n").slice(1)).toEqual([
    expect.stringMatching(/^scheduled to start at /),
    `scheduled — ${WAITING}`,
  ]);
}, 60_000);
