/**
 * Cancelling a bulk replay job takes back its replays not yet sent (here, waiting behind the
 * endpoint's open circuit): their records' history says replay_withdrawn and the job counts them
 * withdrawn, and so do hookline_dlq_events_total and hookline_dlq_replays_total. They were counted
 * nowhere, so a dashboard of replays by result missed every replay a cancellation took back.
 */
import { afterEach, describe, expect, it } from "vitest";
import { anEndpoint, deadLetters, untilJob, type JobOut } from "../support/dlq.js";
import { FakeClock } from "../support/fake-clock.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { scrape } from "../support/metrics.js";
import { Receiver } from "../support/receiver.js";

describe("replays a cancelled job takes back", () => {
  let h: TestHookline;
  let rx: Receiver;
  afterEach(async () => {
    await h.stop();
    await rx.close();
  });

  it("are counted withdrawn in hookline_dlq_events_total and hookline_dlq_replays_total", async () => {
    const clock = new FakeClock();
    h = await startHookline({
      overrides: { clock, breaker: { consecutiveFailures: 3, probeDelayMs: 60 * 60_000 } },
    });
    rx = await Receiver.start(() => ({ status: 503 }));
    const ep = await anEndpoint(h, rx.url("/hooks"));
    const records = await deadLetters(h, ep, 3);
    await h.waitFor((e) => e.type === "circuit" && e.transition.to === "open");
    const sent = rx.requests.length;

    const started = await h.api<JobOut>("POST", "/api/v1/dlq/replay", {
      ids: records.map((r) => r.id),
      ratePerSecond: 5,
      canarySize: 3,
    });
    // The rate's tokens come with the clock; the probe stays an hour off, so all three wait.
    for (let n = 1; n <= 3; n++) {
      await untilJob(h, started.body.id, (j) => j.progress.queued === n);
      if (n < 3) clock.advance(1_000);
    }
    const cancelled = await h.api<JobOut>("POST", `/api/v1/dlq/replay/${started.body.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.progress).toMatchObject({ withdrawn: 3, failed: 0 });

    const s = await scrape(h.url, h.token);
    expect(s.get('hookline_dlq_events_total{kind="replay_withdrawn"}')).toBe(3);
    expect(s.get('hookline_dlq_events_total{kind="replay_failed"}')).toBe(0);
    expect(s.get('hookline_dlq_replays_total{result="withdrawn"}')).toBe(3);
    expect(s.get('hookline_dlq_replays_total{result="failed"}')).toBe(0);
    expect(rx.requests.length).toBe(sent);
  });
});
