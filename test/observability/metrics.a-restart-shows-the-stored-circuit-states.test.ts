/**
 * hookline_circuit_state after a restart: endpoints whose circuits were open or half-open when
 * hookline stopped show that state as soon as it is back, before anything happens to them (an
 * open circuit may wait an hour for its probe, and alerts on open circuits must not go blind for
 * that long). Only as many endpoints as HOOKLINE_METRICS_MAX_ENDPOINTS allows get series, the most
 * recently changed first. A circuit closed meanwhile by another worker is not shown open.
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

describe("hookline_circuit_state after a restart", () => {
  it("shows the stored state of circuits not closed, within the endpoint slots", async () => {
    const start = (dataDir?: string) =>
      startHookline({ dataDir, env: { HOOKLINE_METRICS_MAX_ENDPOINTS: "2" } });
    h = await start();
    const [open, halfOpen, older] = [
      await anEndpoint(h, "http://127.0.0.1:9/open"),
      await anEndpoint(h, "http://127.0.0.1:9/half-open"),
      await anEndpoint(h, "http://127.0.0.1:9/older"),
    ].map((e) => e.endpointId) as [string, string, string];
    const now = Date.now();
    const opened: CircuitRecord = {
      state: "open",
      since: now - MINUTE,
      reason: "5 consecutive failures",
      nextProbeAt: now + 60 * MINUTE,
      reopenCount: 3,
    };
    const store = h.hookline.store;
    await store.saveCircuit(open, opened, null);
    await store.saveCircuit(halfOpen, { ...opened, state: "half-open", nextProbeAt: null }, null);
    await store.saveCircuit(older, { ...opened, since: now - 10 * MINUTE }, null);
    await h.stop(true);

    h = await start(h.dataDir);
    const m = await scrape(h.url, h.token);
    expect(m.get(circuitStateSeries(open, "open"))).toBe(1);
    expect(m.get(circuitStateSeries(open, "closed"))).toBe(0);
    expect(m.get(circuitStateSeries(halfOpen, "half-open"))).toBe(1);
    expect(m.get(circuitStateSeries(halfOpen, "open"))).toBe(0);
    // Two slots: the circuit that changed longest ago has none.
    expect(m.has(circuitStateSeries(older, "open"))).toBe(false);
    expect(m.get("hookline_metrics_tracked_endpoints")).toBe(2);

    // Another worker of a fleet closes one: the state read at start is not shown any longer.
    await h.hookline.store.saveCircuit(
      open,
      { ...opened, state: "closed", nextProbeAt: null },
      null,
    );
    const after = await scrape(h.url, h.token);
    expect(after.has(circuitStateSeries(open, "open"))).toBe(false);
    expect(after.get(circuitStateSeries(halfOpen, "half-open"))).toBe(1);
  });
});
