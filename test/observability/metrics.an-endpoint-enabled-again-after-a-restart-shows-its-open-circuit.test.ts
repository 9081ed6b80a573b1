/**
 * hookline_circuit_state of an endpoint that was disabled, its circuit open, when hookline
 * started, and is enabled again afterwards. At start the circuit was rightly left out (a disabled
 * endpoint's circuit is not shown down), and nothing brought it in again: it stayed out of the
 * gauge until the engine took the endpoint up at its probe, up to an hour later, while the
 * endpoint was down and enabled. It is now shown from the first scrape after it is enabled.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { CircuitRecord } from "../../src/domain/types.js";
import { anEndpoint } from "../support/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { circuitStateSeries, scrape } from "../support/metrics.js";

const MINUTE = 60_000;

let h: TestHookline | null = null;
afterAll(async () => {
  await h?.stop();
});

describe("an endpoint disabled at start and enabled again", () => {
  it("has its stored open circuit shown from the next scrape on, long before its probe", async () => {
    h = await startHookline();
    const ep = await anEndpoint(h, "http://127.0.0.1:9/down");
    const now = Date.now();
    const opened: CircuitRecord = {
      state: "open",
      since: now - MINUTE,
      reason: "5 consecutive failures",
      nextProbeAt: now + 60 * MINUTE,
      reopenCount: 2,
    };
    await h.hookline.store.saveCircuit(ep.endpointId, opened, null);
    const setDisabled = async (disabled: boolean) => {
      const r = await h!.api("PATCH", `/api/v1/app/${ep.appId}/endpoint/${ep.endpointId}`, {
        disabled,
      });
      expect(r.status).toBe(200);
    };
    await setDisabled(true);
    await h.stop(true);

    h = await startHookline({ dataDir: h.dataDir });
    const atStart = await scrape(h.url, h.token);
    expect(atStart.has(circuitStateSeries(ep.endpointId, "open"))).toBe(false);

    await setDisabled(false);
    const enabled = await scrape(h.url, h.token);
    expect(enabled.get(circuitStateSeries(ep.endpointId, "open"))).toBe(1);
    expect(enabled.get(circuitStateSeries(ep.endpointId, "closed"))).toBe(0);
    expect(enabled.get(circuitStateSeries(ep.endpointId, "half-open"))).toBe(0);
    // Shown as stored: the engine has not taken the endpoint up, its probe an hour away.
    expect(h.hookline.engine.endpointStatus(ep.endpointId)).toBeNull();

    // And left out again once disabled again.
    await setDisabled(true);
    expect((await scrape(h.url, h.token)).has(circuitStateSeries(ep.endpointId, "open"))).toBe(
      false,
    );
  });
});
