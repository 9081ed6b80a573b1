/**
 * hookline_first_attempts_total counts every delivery's first attempt, also one that goes out as
 * an open circuit's probe (recorded with trigger `probe`): the retry ratio divides by it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anEndpoint, post } from "../support/dlq.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { scrape } from "../support/metrics.js";
import { Receiver } from "../support/receiver.js";

let h: TestHookline;
let rx: Receiver;
beforeAll(async () => {
  // One failure opens the circuit; its probe goes out 300 ms later.
  h = await startHookline({
    overrides: { breaker: { consecutiveFailures: 1, probeDelayMs: 300, halfOpenSuccesses: 1 } },
  });
  rx = await Receiver.start((_req, i) => ({ status: i === 0 ? 503 : 200 }));
});
afterAll(async () => {
  await h.stop();
  await rx.close();
});

describe("a first attempt sent as the circuit's probe", () => {
  it("is counted as a first attempt", async () => {
    const ep = await anEndpoint(h, rx.url("/hooks"));
    const failed = await post(h, ep.appId, { n: 1 });
    await h.waitFor(deliveryOf(failed, "dead"));
    // Posted while the circuit is open: its first attempt is the probe.
    const probed = await post(h, ep.appId, { n: 2 });
    const done = await h.waitFor(deliveryOf(probed, "succeeded"));
    expect(done).toMatchObject({ attempt: { trigger: "probe" }, attemptNumber: 1 });

    const s = await scrape(h.url, h.token);
    expect(s.get(`hookline_first_attempts_total{endpoint="${ep.endpointId}"}`)).toBe(2);
    expect(h.hookline.observability.metrics.tally.firstAttempts).toBe(2);
  });
});
