import { describe, expect, it } from "vitest";
import { resolveConfig } from "../src/config.js";
import { ConfigError } from "../src/errors.js";
import { thresholdsOf } from "../src/observability/service.js";

describe("the observability settings", () => {
  it("default to 500 endpoint slots, private metrics, 30 s alert ticks and the documented thresholds", () => {
    const c = resolveConfig({});
    expect(c).toMatchObject({
      metricsMaxEndpoints: 500,
      metricsPublic: false,
      alertIntervalMs: 30_000,
      drillIntervalMs: 0,
      drillStepTimeoutMs: 60_000,
      opWebhookFailingAfter: 4,
      alerts: {
        exhaustionRate: 0.01,
        exhaustionForMs: 10 * 60_000,
        dlqMaxAgeMs: 24 * 3_600_000,
        endpointSuccessRate: 0.5,
        healthySuccessRate: 0.95,
        endpointForMs: 5 * 60_000,
        dlqStuckMs: 60 * 60_000,
        queueLagMs: 300_000,
      },
    });
    expect(thresholdsOf(c).drillMaxAgeMs).toBeNull();
  });

  it("are read from the environment; scheduled drills also alert when they stop passing", () => {
    const c = resolveConfig({
      HOOKLINE_METRICS_MAX_ENDPOINTS: "0",
      HOOKLINE_METRICS_PUBLIC: "1",
      HOOKLINE_ALERT_EXHAUSTION_PERCENT: "5",
      HOOKLINE_ALERT_QUEUE_LAG_SECONDS: "60",
      HOOKLINE_DRILL_INTERVAL_MINUTES: "60",
    });
    expect(c).toMatchObject({ metricsMaxEndpoints: 0, metricsPublic: true });
    expect(c.alerts).toMatchObject({ exhaustionRate: 0.05, queueLagMs: 60_000 });
    expect(Object.isFrozen(c.alerts)).toBe(true);
    expect(thresholdsOf(c).drillMaxAgeMs).toBe(2 * 3_600_000 + 10 * 60_000);
  });

  it("name the variable when a value is bad", () => {
    for (const [name, value] of [
      ["HOOKLINE_METRICS_MAX_ENDPOINTS", "-1"],
      ["HOOKLINE_METRICS_PUBLIC", "maybe"],
      ["HOOKLINE_ALERT_INTERVAL_SECONDS", "0"],
      ["HOOKLINE_ALERT_EXHAUSTION_PERCENT", "101"],
      ["HOOKLINE_ALERT_ENDPOINT_SUCCESS_PERCENT", "half"],
      ["HOOKLINE_DRILL_STEP_TIMEOUT_SECONDS", "1"],
      ["HOOKLINE_OPWEBHOOK_FAILING_AFTER", "0"],
    ] as const) {
      expect(() => resolveConfig({ [name]: value })).toThrow(ConfigError);
      expect(() => resolveConfig({ [name]: value })).toThrow(name);
    }
  });
});
