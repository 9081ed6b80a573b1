/**
 * The Prometheus rules shipped in deploy/prometheus: valid for promtool, their unit tests pass,
 * and they cover the same alerts hookline evaluates itself, on metrics hookline exports.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { EngineEvents } from "../../src/engine/events.js";

const DIR = fileURLToPath(new URL("../../deploy/prometheus/", import.meta.url));
const RULES = readFileSync(`${DIR}hookline-rules.yml`, "utf8");

const promtool = (...args: string[]) => spawnSync("promtool", args, { cwd: DIR, encoding: "utf8" });

describe("deploy/prometheus/hookline-rules.yml", () => {
  it("passes promtool check rules", () => {
    const run = promtool("check", "rules", "hookline-rules.yml");
    expect(run.error, "promtool must be installed (.ci/run installs it)").toBeUndefined();
    expect(run.stdout + run.stderr).toContain("SUCCESS");
    expect(run.status).toBe(0);
  });

  it("passes its promtool unit tests", () => {
    const run = promtool("test", "rules", "hookline-rules.test.yml");
    expect(run.stdout + run.stderr).toContain("SUCCESS");
    expect(run.status).toBe(0);
  });

  it("has one alert per rule hookline evaluates, on metrics hookline exports", async () => {
    const alerts = [...RULES.matchAll(/- alert: (\w+)/g)].map((m) => m[1]);
    expect(alerts).toEqual([
      "HooklineRetryExhaustionRate",
      "HooklineDlqOldestRecordAge",
      "HooklineEndpointFailing",
      "HooklineDlqStuck",
      "HooklineQueueLag",
      "HooklineDrillFailing",
    ]);
    const runbooks = [...RULES.matchAll(/runbook: docs\/runbook.md#(\w+)/g)].map((m) => m[1]);
    expect(runbooks).toEqual([
      "retry_exhaustion_rate",
      "dlq_oldest_age",
      "endpoint_failing",
      "dlq_stuck",
      "queue_lag",
      "drill_failing",
    ]);
    // Every hookline_* metric the rules read is one /metrics exports.
    const { HooklineMetrics } = await import("../../src/observability/metrics.js");
    const metrics = new HooklineMetrics({
      store: null as never,
      // A process that does not deliver: the engine's gauges have nothing to report.
      engine: { deliveryBudget: () => null } as never,
      events: new EngineEvents(),
      clock: { now: () => 0, setTimer: () => ({ id: 0 }), clearTimer: () => {} },
      settings: { maxEndpoints: 1, slotIdleMs: 0 },
    });
    const exported = new Set(
      (await metrics.registry.getMetricsAsJSON()).map((m) => m.name as string),
    );
    const used = new Set(
      [...RULES.matchAll(/\b(hookline_[a-z_]+?)(?:_bucket|_count|_sum)?\b/g)].map((m) => m[1]),
    );
    for (const name of used) expect(exported, name).toContain(name);
  });
});
