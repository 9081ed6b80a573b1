/**
 * hookline_circuit_state of a disabled endpoint. Nothing is sent to a disabled endpoint and its
 * circuit stays as it was, open for good: the shipped Prometheus rule HooklineEndpointFailing,
 * which counts an endpoint down while this gauge shows its circuit open, kept firing for an
 * endpoint someone had chosen to stop, while hookline's own `endpoint_failing` had resolved. The
 * circuit of a disabled endpoint is now left out, whether the engine holds the endpoint or it is
 * shown as stored, and shown again once the endpoint is enabled.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anEndpoint, post } from "../support/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { circuitStateSeries, scrape } from "../support/metrics.js";
import { Receiver } from "../support/receiver.js";

let rx: Receiver;
let h: TestHookline;
beforeAll(async () => {
  rx = await Receiver.start(() => ({ status: 500 }));
  h = await startHookline({ overrides: { breaker: { consecutiveFailures: 2 } } });
});
afterAll(async () => {
  await h.stop();
  await rx.close();
});

const setDisabled = async (ep: { appId: string; endpointId: string }, disabled: boolean) => {
  const r = await h.api("PATCH", `/api/v1/app/${ep.appId}/endpoint/${ep.endpointId}`, {
    disabled,
  });
  expect(r.status).toBe(200);
};

describe("a disabled endpoint's open circuit", () => {
  it(
    "is not shown, live or stored at start, and is shown again once enabled",
    { timeout: 60_000 },
    async () => {
      const ep = await anEndpoint(h, rx.url("/down"), { retry: { preset: "default" } });
      await post(h, ep.appId, { n: 1 });
      await post(h, ep.appId, { n: 2 });
      await h.waitFor(
        (e) => e.type === "circuit" && e.endpointId === ep.endpointId && e.transition.to === "open",
      );
      expect((await scrape(h.url, h.token)).get(circuitStateSeries(ep.endpointId, "open"))).toBe(1);

      await setDisabled(ep, true);
      // The engine still holds the endpoint, and reads its settings again only at the probe.
      expect(h.hookline.engine.endpointStatus(ep.endpointId)?.circuit.state).toBe("open");
      const disabled = await scrape(h.url, h.token);
      expect(disabled.has(circuitStateSeries(ep.endpointId, "open"))).toBe(false);

      await setDisabled(ep, false);
      expect((await scrape(h.url, h.token)).get(circuitStateSeries(ep.endpointId, "open"))).toBe(1);

      // Shown as stored after a restart: left out while disabled there too.
      await setDisabled(ep, true);
      await h.stop(true);
      h = await startHookline({
        dataDir: h.dataDir,
        overrides: { breaker: { consecutiveFailures: 2 } },
      });
      const restarted = await scrape(h.url, h.token);
      expect(restarted.has(circuitStateSeries(ep.endpointId, "open"))).toBe(false);
      expect(restarted.has(circuitStateSeries(ep.endpointId, "closed"))).toBe(false);
    },
  );
});
