/**
 * A bulk replay whose replays wait behind their endpoint's open circuit may wait for hours (a
 * probe every hour at most, each of them one replay): the job says so, and until when.
 */
import { afterEach, describe, expect, it } from "vitest";
import { anEndpoint, deadLetters, untilJob, type JobOut } from "../support/dlq.js";
import { FakeClock } from "../support/fake-clock.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe("a bulk replay held by its endpoint's open circuit", () => {
  let h: TestHookline;
  let rx: Receiver;
  afterEach(async () => {
    await h.stop();
    await rx.close();
  });

  it("says that it waits for the circuit, and for the probe at what time", async () => {
    const clock = new FakeClock();
    // The circuit opens at the sixth failure, once every record is made: at three, posts that
    // came slowly (a loaded machine) found it open and waited for its probe, never dead.
    h = await startHookline({
      overrides: { clock, breaker: { consecutiveFailures: 6, probeDelayMs: 5 * 60_000 } },
    });
    rx = await Receiver.start(() => ({ status: 404 }));
    const ep = await anEndpoint(h, rx.url("/hooks"), {});
    await deadLetters(h, ep, 6);
    await h.waitFor((e) => e.type === "circuit" && e.transition.to === "open");
    const circuit = await h.api<{ state: string; nextProbeAt: string }>(
      "GET",
      `/api/v1/app/${ep.appId}/endpoint/${ep.endpointId}/circuit`,
    );
    expect(circuit.body.state).toBe("open");

    const started = await h.api<JobOut>("POST", "/api/v1/dlq/replay", {
      endpointId: ep.endpointId,
      ratePerSecond: 1,
      canarySize: 3,
    });
    const job = await untilJob(h, started.body.id, (j) => j.progress.queued === 1 && !!j.reason);
    expect(job.reason).toBe(
      "canary: waiting for results: 1 replays out at once; " +
        `1 waits for the open circuit of endpoint ${ep.endpointId} (next probe at ` +
        `${circuit.body.nextProbeAt})`,
    );
    expect(rx.requests).toHaveLength(6);
  });
});
