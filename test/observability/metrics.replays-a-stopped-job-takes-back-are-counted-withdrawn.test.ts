/**
 * A bulk replay job that stops (here: its receiver failed again after the canary, and its circuit
 * opened) takes back the replays it queued that were not sent. The job counts them withdrawn, and
 * so do hookline_dlq_events_total and hookline_dlq_replays_total: they were counted nowhere.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { anEndpoint, deadLetters, untilJob, type JobOut } from "../support/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { scrape } from "../support/metrics.js";
import { Receiver } from "../support/receiver.js";

describe("replays a stopped job takes back", () => {
  let h: TestHookline;
  let rx: Receiver;
  afterEach(async () => {
    await h.stop();
    await rx.close();
  });

  it("are counted withdrawn in hookline_dlq_events_total and hookline_dlq_replays_total", async () => {
    h = await startHookline({
      overrides: { breaker: { consecutiveFailures: 3, probeDelayMs: 3_600_000 } },
    });
    // 429 is no failure to the breaker: the records are made with its circuit closed.
    rx = await Receiver.start(() => ({ status: 429 }));
    // One request at a time: the third failure opens the circuit while the other replays wait
    // for the endpoint (with room for them all, a loaded machine can send every one first).
    const ep = await anEndpoint(h, rx.url("/hooks"), {
      retry: { preset: "manual" },
      concurrencyLimit: 1,
    });
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
    const p = job.progress;
    expect(p.withdrawn).toBeGreaterThan(0);

    // The job's row is written before its runner announces what it took back: wait for that.
    const series = async () => {
      const s = await scrape(h.url, h.token);
      return {
        events: s.get('hookline_dlq_events_total{kind="replay_withdrawn"}'),
        withdrawn: s.get('hookline_dlq_replays_total{result="withdrawn"}'),
        failed: s.get('hookline_dlq_replays_total{result="failed"}'),
        eventsFailed: s.get('hookline_dlq_events_total{kind="replay_failed"}'),
      };
    };
    await vi.waitFor(async () => expect((await series()).withdrawn).toBe(p.withdrawn), {
      timeout: 10_000,
      interval: 20,
    });
    expect(await series()).toEqual({
      events: p.withdrawn,
      withdrawn: p.withdrawn,
      failed: p.failed,
      eventsFailed: p.failed,
    });
  });
});
