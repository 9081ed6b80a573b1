/**
 * A bulk replay job that stops (here: its receiver failed again after the canary, and its circuit
 * opened) takes back the replays it queued that were not sent. The job counts them withdrawn, and
 * so do hookline_dlq_events_total and hookline_dlq_replays_total: they were counted nowhere.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { aReplayItsReceiverFailsAgain } from "../support/dlq.js";
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
    rx = await Receiver.start();
    const { job } = await aReplayItsReceiverFailsAgain(h, rx);
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
