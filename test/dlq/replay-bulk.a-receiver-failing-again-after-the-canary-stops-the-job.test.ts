/**
 * A canary that passed vouches for the receiver as it was then. Should the receiver fail again
 * while the rest is replayed, its circuit opens and every further replay waits for a probe, up to
 * an hour apart, one replay each: the job would run for days. It stops instead, and takes back
 * the replays it queued that were not sent.
 */
import { afterEach, describe, expect, it } from "vitest";
import { anEndpoint, deadLetters, untilJob, type JobOut, type RecordOut } from "../support/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe("a bulk replay whose receiver fails again after the canary", () => {
  let h: TestHookline;
  let rx: Receiver;
  afterEach(async () => {
    await h.stop();
    await rx.close();
  });

  it("stops, says why, and withdraws the replays its endpoint's circuit holds", async () => {
    h = await startHookline({
      overrides: { breaker: { consecutiveFailures: 3, probeDelayMs: 3_600_000 } },
    });
    // 429 is no failure to the breaker: the records are made with its circuit closed.
    rx = await Receiver.start(() => ({ status: 429 }));
    const ep = await anEndpoint(h, rx.url("/hooks"));
    await deadLetters(h, ep, 20);
    let replays = 0;
    rx.behave(() => ({ status: ++replays <= 3 ? 200 : 503 }));

    const started = await h.api<JobOut>("POST", "/api/v1/dlq/replay", {
      endpointId: ep.endpointId,
      ratePerSecond: 1000,
      canarySize: 3,
    });
    const job = await untilJob(
      h,
      started.body.id,
      (j) => j.state !== "running" && j.progress.outstanding === 0,
    );
    expect(job.state).toBe("stopped");
    expect(job.reason).toMatch(
      new RegExp(
        `^the receiver failed again after the canary passed: the circuit of endpoint ` +
          `${ep.endpointId} opened at \\S+; replays not yet sent are withdrawn, and the ` +
          `other \\d+ selected records were not replayed$`,
      ),
    );
    const p = job.progress;
    expect(p.succeeded).toBe(3);
    expect(p.withdrawn).toBeGreaterThan(0);
    expect(p.succeeded + p.failed + p.withdrawn + (p.waiting ?? 0)).toBe(20);

    const records = (
      await h.api<{ data: RecordOut[] }>("GET", `/api/v1/dlq?endpoint_id=${ep.endpointId}`)
    ).body.data;
    expect(records.filter((r) => r.state === "resolved")).toHaveLength(3);
    expect(records.filter((r) => r.state === "open")).toHaveLength(17);
    const withdrawn = records.find((r) => r.state === "open" && r.replayCount === 0)!;
    const history = await h.api<{ history: { action: string; actor: string; result: string }[] }>(
      "GET",
      `/api/v1/dlq/${withdrawn.id}`,
    );
    expect(history.body.history.at(-1)).toMatchObject({
      action: "replay_withdrawn",
      actor: "hookline",
      result: "withdrawn before it was sent: the job stopped",
    });
  });
});
