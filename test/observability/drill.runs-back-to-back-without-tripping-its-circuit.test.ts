/**
 * Each drill fails its endpoint on purpose (the receiver answers 503 until the replay). On one
 * endpoint kept from run to run, those failures added up in its circuit breaker: drills run back
 * to back (20 failures within 5 minutes by default; here the breaker opens at 5) opened it, the
 * drill that did so failed, and so did every one after, for good: each one's first request went
 * as the probe, met the deliberate 503, and kept the circuit open. Each run now has an endpoint of
 * its own (uid `drill`, the last run's deleted), so every drill starts on a closed circuit.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHookline, type TestHookline } from "../support/hookline.js";

interface DrillOut {
  passed: boolean;
  steps: { name: string; passed: boolean; detail: string }[];
}

let h: TestHookline;
beforeAll(async () => {
  h = await startHookline({ overrides: { breaker: { windowFailures: 5 } } });
});
afterAll(async () => h.stop());

describe("failure drills run back to back", () => {
  it("each pass, with one drill endpoint left, its circuit closed", async () => {
    for (let run = 0; run < 4; run++) {
      const res = await h.api<DrillOut>("POST", "/api/v1/drill");
      expect(res.status).toBe(200);
      expect(res.body.steps.filter((s) => !s.passed)).toEqual([]);
      expect(res.body.passed).toBe(true);
    }
    const endpoints = await h.svix.endpoint.list("hookline-drill");
    expect(endpoints.data.map((e) => e.uid)).toEqual(["drill"]);
    const circuit = await h.api<{ state: string }>(
      "GET",
      `/api/v1/app/hookline-drill/endpoint/drill/circuit`,
    );
    expect(circuit.body.state).toBe("closed");
    // The last run's record, resolved by its replay, is the drill's only one.
    const records = await h.api<{ data: { state: string }[] }>(
      "GET",
      "/api/v1/dlq?app_id=hookline-drill",
    );
    expect(records.body.data.map((r) => r.state)).toEqual(["resolved"]);
  });
});
