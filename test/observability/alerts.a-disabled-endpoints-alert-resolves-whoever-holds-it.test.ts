/**
 * The rules alone, on a fake timeline. In a fleet the worker evaluating an endpoint's alert may
 * have taken it on from a worker that left, and has no samples of the endpoint yet: it fires on
 * unchanged for a window (see alerts.a-taken-on-alert-waits-until-its-rule-can-judge-it). Once
 * the endpoint is disabled or deleted nothing is left to judge, so the alert resolves at once,
 * saying why. A stopped endpoint's failures leave the others' success rate too, so the others
 * it dragged down are judged against those still sent to.
 */
import { describe, expect, it } from "vitest";
import type { AlertRecord } from "../../src/store/port.js";
import { T0, timeline } from "../support/alert-timeline.js";

const taken: AlertRecord = {
  id: "alrt_taken",
  rule: "endpoint_failing",
  severity: "warning",
  summary: "endpoint ep_bad succeeds on 30.0 % of attempts while the others succeed on 99.0 %",
  endpointId: "ep_bad",
  value: 0.3,
  threshold: 0.5,
  since: T0 - 3_600_000,
  resolvedAt: null,
  supersededBy: null,
};

describe("endpoint_failing for an endpoint disabled or deleted", () => {
  it.each(["disabled", "deleted"] as const)(
    "resolves a taken-on alert at the next evaluation once the endpoint is %s",
    (why) => {
      const t = timeline();
      t.rules.adopt([taken], T0);
      t.tick({ ep_bad: { attempts: 5, successes: 1 } });
      expect(t.firing()).toEqual([taken]);
      t.state.stopped.set("ep_bad", why);
      const c = t.tick();
      expect(c.resolved).toEqual([
        { ...taken, summary: `${taken.summary}; resolved: endpoint ${why}`, resolvedAt: t.now },
      ]);
      expect(t.firing()).toEqual([]);
    },
  );

  it("leaves its failures out of the others' rate", () => {
    const t = timeline({ endpointForMs: 0 });
    const both = {
      ep_a: { attempts: 10, successes: 2 },
      ep_b: { attempts: 10, successes: 2 },
      ep_ok: { attempts: 100, successes: 100 },
    };
    t.tick();
    t.tick(both);
    // Two failing at once: neither is singled out while the other counts among "the others".
    expect(t.fired).toEqual([]);
    t.state.stopped.set("ep_a", "disabled");
    t.tick();
    expect(t.fired).toEqual(["endpoint_failing:ep_b"]);
  });
});
