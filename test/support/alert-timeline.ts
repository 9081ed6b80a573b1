/**
 * The alert rules on a fake timeline: each tick moves 30 s on and evaluates a sample built from
 * running totals the test changes, recording what fired and resolved.
 */
import {
  AlertRules,
  DEFAULT_THRESHOLDS,
  type AlertSample,
  type AlertThresholds,
} from "../../src/observability/alert-rules.js";
import type { EndpointCounts } from "../../src/observability/tally.js";

/** Where every timeline starts; its first sample is one tick later. */
export const T0 = Date.UTC(2026, 0, 1);
export const TICK = 30_000;

/** A timeline over fresh rules with `overrides` on the default thresholds. */
export function timeline(overrides: Partial<AlertThresholds> = {}) {
  let n = 0;
  const rules = new AlertRules({ ...DEFAULT_THRESHOLDS, ...overrides }, () => `alrt_${++n}`);
  const state: Omit<AlertSample, "at" | "endpoints"> = {
    ended: 0,
    exhausted: 0,
    dlqLeft: 0,
    dlqClosedAt: null,
    dlqDepth: 0,
    dlqOldestAt: null,
    oldestDueAt: null,
    lastDrill: null,
    lastDrillPassedAt: null,
    down: new Map(),
    stopped: new Map(),
  };
  let at = T0;
  const fired: string[] = [];
  const resolved: string[] = [];
  return {
    rules,
    state,
    get now() {
      return at;
    },
    tick(endpoints: Record<string, EndpointCounts> = {}) {
      at += TICK;
      const changes = rules.evaluate({
        ...state,
        at,
        endpoints: new Map(Object.entries(endpoints)),
        down: new Map(state.down),
        stopped: new Map(state.stopped),
      });
      fired.push(...changes.fired.map((a) => `${a.rule}${a.endpointId ? `:${a.endpointId}` : ""}`));
      resolved.push(...changes.resolved.map((a) => a.rule));
      return changes;
    },
    /** Sets the clock by `ms` (back when negative), as NTP or an operator does; no tick. */
    step(ms: number) {
      at += ms;
    },
    /** Ticks for `ms` with the same per-tick changes; `each` runs before every tick. */
    run(ms: number, each: () => void = () => {}, endpoints: Record<string, EndpointCounts> = {}) {
      for (let t = 0; t < ms; t += TICK) {
        each();
        this.tick(endpoints);
      }
    },
    fired,
    resolved,
    firing: () => rules.firing(),
  };
}
