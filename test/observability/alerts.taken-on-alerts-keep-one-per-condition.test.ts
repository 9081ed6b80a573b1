/**
 * The alert rules taking on firing alerts (their own from before a restart, or a worker's that
 * left): one condition keeps one alert. When the alert taken on meets one the rules already fire
 * for the same condition, the one firing longer carries on and the other is resolved as
 * superseded by it; an alert let go of (another worker holds it now) is judged no more.
 */
import { describe, expect, it } from "vitest";
import {
  AlertRules,
  DEFAULT_THRESHOLDS,
  LEVEL_CLEAR_FOR_MS,
  type AlertSample,
} from "../../src/observability/alert-rules.js";
import type { AlertRecord } from "../../src/store/port.js";

const T0 = Date.UTC(2026, 0, 1);
const MIN = 60_000;

const lagging = (at: number, oldestDueAt: number | null): AlertSample => ({
  at,
  ended: 0,
  exhausted: 0,
  dlqLeft: 0,
  dlqClosedAt: null,
  endpoints: new Map(),
  down: new Map(),
  stopped: new Map(),
  dlqDepth: 0,
  dlqOldestAt: null,
  oldestDueAt,
  lastDrill: null,
  lastDrillPassedAt: null,
});

const queueLag = (id: string, since: number): AlertRecord => ({
  id,
  rule: "queue_lag",
  severity: "critical",
  summary: "behind",
  endpointId: null,
  value: 400,
  threshold: 300,
  since,
  resolvedAt: null,
  supersededBy: null,
});

/** Rules that fired their own queue_lag alert (`alrt_own`) at `firedAt`. */
function firingAt(firedAt: number): AlertRules {
  const rules = new AlertRules(DEFAULT_THRESHOLDS, () => "alrt_own");
  const changes = rules.evaluate(lagging(firedAt, firedAt - 10 * MIN));
  expect(changes.fired.map((a) => a.id)).toEqual(["alrt_own"]);
  return rules;
}

describe("alerts taken on", () => {
  it("one from before a restart fires on, unannounced, and resolves when its condition ends", () => {
    const rules = new AlertRules(DEFAULT_THRESHOLDS, () => "alrt_new");
    const taken = rules.adopt([queueLag("alrt_old", T0)], T0 + MIN);
    expect(taken).toEqual({ fired: [], resolved: [], updated: [] });
    expect(rules.evaluate(lagging(T0 + MIN, T0 - 10 * MIN)).fired).toEqual([]);
    expect(rules.firing().map((a) => a.id)).toEqual(["alrt_old"]);
    expect(rules.evaluate(lagging(T0 + 2 * MIN, null)).resolved).toEqual([]);
    const later = rules.evaluate(lagging(T0 + 2 * MIN + LEVEL_CLEAR_FOR_MS, null));
    expect(later.resolved.map((a) => a.id)).toEqual(["alrt_old"]);
  });

  it("an older alert for the same condition carries on; the rules' own is superseded", () => {
    const rules = firingAt(T0 + 20 * MIN);
    const taken = rules.adopt([queueLag("alrt_left", T0)], T0 + 21 * MIN);
    expect(taken.fired).toEqual([]);
    expect(taken.resolved).toEqual([
      expect.objectContaining({
        id: "alrt_own",
        resolvedAt: T0 + 21 * MIN,
        supersededBy: "alrt_left",
      }),
    ]);
    expect(rules.firing().map((a) => a.id)).toEqual(["alrt_left"]);
    expect(rules.evaluate(lagging(T0 + 22 * MIN, null)).resolved).toEqual([]);
    const ended = rules.evaluate(lagging(T0 + 22 * MIN + LEVEL_CLEAR_FOR_MS, null));
    expect(ended.resolved).toEqual([
      expect.objectContaining({ id: "alrt_left", supersededBy: null }),
    ]);
  });

  it("a younger one is superseded by the rules' own, which carries on", () => {
    const rules = firingAt(T0);
    const taken = rules.adopt([queueLag("alrt_left", T0 + 5 * MIN)], T0 + 6 * MIN);
    expect(taken.resolved).toEqual([
      expect.objectContaining({ id: "alrt_left", supersededBy: "alrt_own" }),
    ]);
    expect(rules.firing().map((a) => a.id)).toEqual(["alrt_own"]);
  });

  it("two taken on at once for one condition become one", () => {
    const rules = new AlertRules(DEFAULT_THRESHOLDS, () => "alrt_new");
    const taken = rules.adopt([queueLag("alrt_b", T0 + MIN), queueLag("alrt_a", T0)], T0 + MIN);
    expect(taken.resolved.map((a) => [a.id, a.supersededBy])).toEqual([["alrt_b", "alrt_a"]]);
    expect(rules.firing().map((a) => a.id)).toEqual(["alrt_a"]);
  });

  it("an alert the rules already hold is taken on again without a change", () => {
    const rules = firingAt(T0);
    const [own] = rules.firing();
    expect(rules.adopt([own!], T0 + MIN)).toEqual({ fired: [], resolved: [], updated: [] });
    expect(rules.firing()).toEqual([own]);
  });

  it("a condition still pending here fires as the alert taken on, without firing anew", () => {
    const rules = new AlertRules(DEFAULT_THRESHOLDS, () => "alrt_own");
    // An endpoint alert needs five minutes to fire; this one is pending for one.
    const failing = { attempts: 20, successes: 0 };
    const sample = (at: number) => ({
      ...lagging(at, null),
      endpoints: new Map([["ep_1", failing]]),
    });
    expect(rules.evaluate(sample(T0)).fired).toEqual([]);
    const left: AlertRecord = {
      ...queueLag("alrt_left", T0 - 10 * MIN),
      rule: "endpoint_failing",
      endpointId: "ep_1",
    };
    expect(rules.adopt([left], T0 + MIN)).toEqual({ fired: [], resolved: [], updated: [] });
    const next = rules.evaluate(sample(T0 + MIN));
    expect(next.fired).toEqual([]);
    expect(rules.firing().map((a) => a.id)).toEqual(["alrt_left"]);
  });

  it("an alert let go of is no longer judged: nothing to resolve when its condition ends", () => {
    const rules = firingAt(T0);
    rules.forget(["alrt_own"]);
    expect(rules.firing()).toEqual([]);
    expect(rules.evaluate(lagging(T0 + MIN, null))).toEqual({
      fired: [],
      resolved: [],
      updated: [],
    });
  });
});
