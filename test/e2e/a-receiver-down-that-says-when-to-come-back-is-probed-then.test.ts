/**
 * A receiver down for maintenance answers 503 with Retry-After: 3600. Once its circuit opened the
 * first probe went five minutes later regardless, and every reopening after it, asking again long
 * before the receiver said it would be back. The probe now waits for the Retry-After of the
 * answer that opened the circuit, shown on the endpoint's circuit with the reason.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anEndpoint, post } from "../support/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

let rx: Receiver;
let h: TestHookline;
beforeAll(async () => {
  rx = await Receiver.start(() => ({ status: 503, headers: { "retry-after": "3600" } }));
  h = await startHookline({ overrides: { breaker: { consecutiveFailures: 2 } } });
});
afterAll(async () => {
  await h.stop();
  await rx.close();
});

describe("a receiver that answers 503 with Retry-After", () => {
  it(
    "is probed when it said it would be back, not five minutes on",
    { timeout: 30_000 },
    async () => {
      const ep = await anEndpoint(h, rx.url("/maintenance"), { retry: { preset: "default" } });
      const before = Date.now();
      await post(h, ep.appId, { n: 1 });
      await post(h, ep.appId, { n: 2 });
      await h.waitFor(
        (e) => e.type === "circuit" && e.endpointId === ep.endpointId && e.transition.to === "open",
      );
      const shown = await h.api<{ state: string; nextProbeAt: string; reason: string }>(
        "GET",
        `/api/v1/app/${ep.appId}/endpoint/${ep.endpointId}/circuit`,
      );
      expect(shown.status).toBe(200);
      expect(shown.body.state).toBe("open");
      const probeAt = Date.parse(shown.body.nextProbeAt);
      expect(probeAt).toBeGreaterThanOrEqual(before + 3_600_000);
      expect(probeAt).toBeLessThanOrEqual(Date.now() + 3_600_000);
      expect(shown.body.reason).toMatch(/; the receiver's Retry-After put the probe off$/);
    },
  );
});
