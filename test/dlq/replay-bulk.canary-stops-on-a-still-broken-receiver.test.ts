import { afterEach, describe, expect, it } from "vitest";
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

describe("a bulk replay's canary", () => {
  let h: TestHookline;
  let rx: Receiver;
  afterEach(async () => {
    await h.stop();
    await rx.close();
  });

  const records = async (endpointId: string) =>
    (
      await h.api<{ data: RecordOut[] }>(
        "GET",
        `/api/v1/dlq?endpoint_id=${endpointId}&order=ascending&limit=100`,
      )
    ).body.data;

  it("stops the job when the sample fails into a receiver still broken, and says why", async () => {
    h = await startHookline({ overrides: { breaker: PATIENT_BREAKER } });
    rx = await Receiver.start(() => ({ status: 503 }));
    const ep = await anEndpoint(h, rx.url("/hooks"));
    await deadLetters(h, ep, 25);
    const started = await h.api<JobOut>("POST", "/api/v1/dlq/replay", {
      endpointId: ep.endpointId,
      ratePerSecond: 200,
    });
    expect(started.body).toMatchObject({ state: "scheduled", stage: "canary" });
    const job = await untilJob(h, started.body.id, (j) => j.state === "stopped");
    expect(job.reason).toBe(
      "canary: 0 of 10 replays succeeded (0 %), below the 90 % threshold; " +
        "the other 15 selected records were not replayed",
    );
    expect(job.progress).toMatchObject({ total: 25, queued: 10, failed: 10, waiting: 15 });
    expect(rx.requests).toHaveLength(25 + 10);
    const after = await records(ep.endpointId);
    expect(after.filter((r) => r.replayCount === 1)).toHaveLength(10);
    expect(after.filter((r) => r.replayCount === 0)).toHaveLength(15);
    expect(after.every((r) => r.state === "open")).toBe(true);
  });

  it("goes on with the rest when the sample meets the threshold", async () => {
    h = await startHookline({ overrides: { breaker: PATIENT_BREAKER } });
    rx = await Receiver.start(() => ({ status: 503 }));
    const ep = await anEndpoint(h, rx.url("/hooks"));
    await deadLetters(h, ep, 8);
    // One of the sample still fails: 3 of 4 is 75 %, at the threshold asked for.
    let replays = 0;
    rx.behave(() => ({ status: ++replays === 2 ? 500 : 200 }));
    const started = await h.api<JobOut>("POST", "/api/v1/dlq/replay", {
      endpointId: ep.endpointId,
      ratePerSecond: 200,
      canarySize: 4,
      canaryThreshold: 0.75,
    });
    const job = await untilJob(h, started.body.id, (j) => j.state === "completed");
    expect(job).toMatchObject({
      stage: "rest",
      progress: { total: 8, queued: 8, succeeded: 7, failed: 1 },
    });
    expect(job.reason).toBe("8 selected: 7 delivered, 1 failed, 0 skipped");
    const after = await records(ep.endpointId);
    expect(after.map((r) => r.state).sort()).toEqual(["open", ...Array(7).fill("resolved")]);
  });
});
