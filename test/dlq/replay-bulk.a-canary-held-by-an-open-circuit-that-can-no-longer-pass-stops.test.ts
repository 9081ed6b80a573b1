/**
 * A canary behind an open circuit gets one result per probe, and probes come up to an hour apart.
 * Once its failures alone put the threshold out of reach, waiting for the rest of the sample
 * changes nothing but the hour: the job stops then, and takes back the replays still waiting.
 */
import { afterEach, describe, expect, it } from "vitest";
import { anEndpoint, deadLetters, untilJob, type JobOut, type RecordOut } from "../support/dlq.js";
import { FakeClock } from "../support/fake-clock.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe("a canary held by an open circuit", () => {
  let h: TestHookline;
  let rx: Receiver;
  afterEach(async () => {
    await h.stop();
    await rx.close();
  });

  it("stops at the first probe that puts the threshold out of reach", async () => {
    const clock = new FakeClock();
    // The circuit opens at the eighth failure, once every record is made: at three, on a loaded
    // machine whose posts came slowly, it held the later messages for its probe, never dead.
    h = await startHookline({
      overrides: { clock, breaker: { consecutiveFailures: 8, probeDelayMs: 5 * 60_000 } },
    });
    rx = await Receiver.start(() => ({ status: 404 }));
    const ep = await anEndpoint(h, rx.url("/hooks"), {});
    await deadLetters(h, ep, 8);
    await h.waitFor((e) => e.type === "circuit" && e.transition.to === "open");
    rx.behave(() => ({ status: 503 }));

    const started = await h.api<JobOut>("POST", "/api/v1/dlq/replay", {
      endpointId: ep.endpointId,
      ratePerSecond: 5,
      canarySize: 3,
    });
    await untilJob(h, started.body.id, (j) => j.progress.queued === 1);
    // The probe: the canary's first replay, into a receiver still broken. 0 of 3 can pass now.
    clock.advance(5 * 60_000);
    await untilJob(h, started.body.id, (j) => j.progress.failed === 1);
    // The rest of the sample is queued, behind the circuit reopened until the next probe.
    clock.advance(1_000);
    const job = await untilJob(
      h,
      started.body.id,
      (j) => j.state !== "running" && j.progress.outstanding === 0,
    );
    expect(job.state).toBe("stopped");
    expect(job.reason).toMatch(
      /^canary: 0 of 1 replays succeeded; with the 2 still to come at most 66\.7 % can, below the 90 % threshold; replays not yet sent are withdrawn, and the other \d+ selected records were not replayed$/,
    );
    expect(job.progress).toMatchObject({ succeeded: 0, failed: 1 });
    expect(rx.requests).toHaveLength(8 + 1);
    const records = (
      await h.api<{ data: RecordOut[] }>("GET", `/api/v1/dlq?endpoint_id=${ep.endpointId}`)
    ).body.data;
    expect(records.every((r) => r.state === "open")).toBe(true);
  });
});
