/**
 * An alert the rules take on (their own from before a restart, or a worker's that left) arrives
 * without the samples its rule judges: the rules of a restarted process start sampling afresh.
 * A rule over rates must not call it resolved for want of data; it fires on, unchanged, until
 * the rules have sampled its whole window since taking it on, then resolves if the condition
 * ended. Rules judged from the store's state alone (ages, the drill) judge it at once (a level
 * rule then resolves once its condition stayed clear for LEVEL_CLEAR_FOR_MS), and so does
 * `dlq_stuck` when what it sampled since already shows the queue moving.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_THRESHOLDS, LEVEL_CLEAR_FOR_MS } from "../../src/observability/alert-rules.js";
import type { AlertRecord } from "../../src/store/port.js";
import { T0, TICK, timeline } from "../support/alert-timeline.js";

const MIN = 60_000;
const HOUR = 60 * MIN;
const WINDOW = DEFAULT_THRESHOLDS.windowMs;

const firing = (rule: string, endpointId: string | null = null): AlertRecord => ({
  id: `alrt_${rule}`,
  rule,
  severity: "warning",
  summary: "firing before the restart",
  endpointId,
  value: 0,
  threshold: 0.5,
  since: T0 - HOUR,
  resolvedAt: null,
  supersededBy: null,
});

/** Fresh rules that took `alert` on at T0, as a process does when it starts. */
function restartedWith(alert: AlertRecord) {
  const t = timeline();
  expect(t.rules.adopt([alert], T0)).toEqual({ fired: [], resolved: [], updated: [] });
  return t;
}

describe("an alert taken on by rules over rates", () => {
  it("endpoint_failing fires on, unchanged, while the endpoint keeps failing every attempt", () => {
    const alert = firing("endpoint_failing", "ep_bad");
    const t = restartedWith(alert);
    t.run(3 * WINDOW, undefined, { ep_bad: { attempts: 5, successes: 0 } });
    expect(t.fired).toEqual([]);
    expect(t.resolved).toEqual([]);
    expect(t.firing()).toEqual([alert]);
  });

  it("endpoint_failing waits a whole window of samples, unchanged, before it resolves", () => {
    const alert = firing("endpoint_failing", "ep_bad");
    const t = restartedWith(alert);
    const recovered = { ep_bad: { attempts: 5, successes: 5 } };
    // The first sample is at T0 + 30 s; until a window after it, the rule cannot tell.
    t.run(WINDOW, undefined, recovered);
    expect(t.resolved).toEqual([]);
    expect(t.firing()).toEqual([alert]);
    const c = t.tick(recovered);
    expect(t.now).toBe(T0 + TICK + WINDOW);
    expect(c.resolved).toEqual([{ ...alert, resolvedAt: t.now }]);
    expect(t.fired).toEqual([]);
  });

  it("endpoint_failing of an endpoint with no traffic resolves once a window shows none", () => {
    const t = restartedWith(firing("endpoint_failing", "ep_bad"));
    t.run(WINDOW);
    expect(t.resolved).toEqual([]);
    t.tick();
    expect(t.resolved).toEqual(["endpoint_failing"]);
  });

  it("retry_exhaustion_rate fires on while deliveries keep exhausting their ladder", () => {
    const t = restartedWith(firing("retry_exhaustion_rate"));
    t.run(3 * WINDOW, () => {
      t.state.ended += 10;
      t.state.exhausted += 10;
    });
    expect(t.fired).toEqual([]);
    expect(t.resolved).toEqual([]);
    expect(t.firing().map((a) => a.id)).toEqual(["alrt_retry_exhaustion_rate"]);

    // Once the deliveries succeed again, it resolves when the window no longer holds failures.
    t.run(WINDOW + TICK, () => (t.state.ended += 10));
    expect(t.resolved).toEqual(["retry_exhaustion_rate"]);
  });

  it("retry_exhaustion_rate whose deliveries succeed resolves a window after it was taken on", () => {
    const t = restartedWith(firing("retry_exhaustion_rate"));
    t.run(WINDOW, () => (t.state.ended += 10));
    expect(t.resolved).toEqual([]);
    t.tick();
    expect(t.resolved).toEqual(["retry_exhaustion_rate"]);
  });

  it("dlq_stuck fires on for as long as nothing leaves, past the hour it needs to judge", () => {
    const t = restartedWith(firing("dlq_stuck"));
    t.state.dlqDepth = 5;
    t.state.dlqOldestAt = T0 - 2 * HOUR;
    t.run(2 * HOUR, () => (t.state.dlqDepth += 1));
    expect(t.fired).toEqual([]);
    expect(t.resolved).toEqual([]);
    expect(t.firing().map((a) => a.id)).toEqual(["alrt_dlq_stuck"]);
  });

  it("dlq_stuck resolves as soon as a record is seen leaving, without waiting the hour", () => {
    const t = restartedWith(firing("dlq_stuck"));
    t.state.dlqDepth = 5;
    t.state.dlqOldestAt = T0 - 2 * HOUR;
    t.run(10 * MIN);
    expect(t.resolved).toEqual([]);
    t.state.dlqLeft += 1;
    t.state.dlqDepth -= 1;
    t.tick();
    expect(t.resolved).toEqual(["dlq_stuck"]);
  });

  it("dlq_stuck of a queue found empty resolves at the first evaluation", () => {
    const t = restartedWith(firing("dlq_stuck"));
    t.tick();
    expect(t.resolved).toEqual(["dlq_stuck"]);
  });
});

describe("an alert taken on by rules over the store's state", () => {
  it("drill_failing is judged at the first evaluation", () => {
    const t = restartedWith(firing("drill_failing"));
    t.tick();
    expect(t.resolved).toEqual(["drill_failing"]);
  });

  it.each([["dlq_oldest_age"], ["queue_lag"]])(
    "%s is judged from the first evaluation: clear from there, it resolves a quiet period later",
    (rule) => {
      const t = restartedWith(firing(rule));
      t.run(LEVEL_CLEAR_FOR_MS);
      expect(t.resolved).toEqual([]);
      t.tick();
      expect(t.resolved).toEqual([rule]);
    },
  );
});

describe("an alert taken on for a condition the rules already fire for", () => {
  it("is judged on the rules' own samples at once", () => {
    const t = timeline();
    t.run(12 * MIN, () => {
      t.state.ended += 10;
      t.state.exhausted += 10;
    });
    expect(t.fired).toEqual(["retry_exhaustion_rate"]);
    // A worker that left had fired for it earlier: its alert carries on, judged as this one was.
    const left = { ...firing("retry_exhaustion_rate"), severity: "critical" as const };
    t.rules.adopt([left], t.now);
    expect(t.firing().map((a) => a.id)).toEqual([left.id]);
    // A flood of successes brings the rate under 1 % at once: no window to wait for here.
    t.state.ended += 100_000;
    expect(t.tick().resolved.map((a) => a.id)).toEqual([left.id]);
  });
});
