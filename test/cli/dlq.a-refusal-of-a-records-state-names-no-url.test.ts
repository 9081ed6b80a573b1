/**
 * A dead-letter command hookline refuses for the record's or the job's state (409: an abandoned
 * record cannot be replayed or abandoned again, a job that ended cannot be cancelled)
 * prints hookline's reason alone. "(--url or HOOKLINE_URL)" follows only a message the URL is to
 * blame for (a drill against a process that cannot run one); here the URL reached the right
 * hookline, and naming it would send the operator to change what is right.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../support/built-cli.js";
import {
  anEndpoint,
  deadLetters,
  PATIENT_BREAKER,
  untilJob,
  type JobOut,
  type RecordOut,
} from "../support/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe("hookline dlq, refused for a record's or a job's state", () => {
  let h: TestHookline;
  let rx: Receiver;
  let env: Record<string, string>;
  let record: RecordOut;
  let job: JobOut;

  beforeAll(async () => {
    h = await startHookline({ overrides: { breaker: PATIENT_BREAKER } });
    rx = await Receiver.start(() => ({ status: 503 }));
    const ep = await anEndpoint(h, rx.url("/hooks"));
    const [abandoned, replayed] = await deadLetters(h, ep, 2);
    record = abandoned!;
    const done = await h.api("POST", `/api/v1/dlq/${record.id}/abandon`, { note: "given up" });
    expect(done.status).toBe(200);
    const started = await h.api<JobOut>("POST", "/api/v1/dlq/replay", {
      ids: [replayed!.id],
      canarySize: 0,
    });
    expect(started.status).toBe(202);
    job = await untilJob(h, started.body.id, (j) => !["scheduled", "running"].includes(j.state));
    env = { HOOKLINE_URL: h.url, HOOKLINE_TOKEN: h.token };
  });
  afterAll(async () => {
    await h?.stop();
    await rx?.close();
  });

  const refused = async (args: string[]) => {
    const run = await runCli(["dlq", ...args], env);
    expect(run.code, run.err).toBe(1);
    expect(run.out).toBe("");
    expect(run.err).toMatch(/^hookline: 409: /);
    expect(run.err).not.toContain("--url");
    expect(run.err).not.toContain("HOOKLINE_URL");
    return run.err;
  };

  it("replaying an abandoned record says why, naming no URL", async () => {
    expect(await refused(["replay", record.id])).toBe(
      `hookline: 409: record ${record.id} is abandoned: only open or resolved records can be replayed\n`,
    );
  });

  it("abandoning it again says why, naming no URL", async () => {
    expect(await refused(["abandon", record.id, "--note", "again"])).toContain(
      `record ${record.id} is abandoned`,
    );
  });

  it("cancelling a job that ended says why, naming no URL", async () => {
    expect(await refused(["cancel", job.id])).toContain(job.id);
  });
});
