/**
 * The alert rules as a state machine over samples on a fake timeline: every rule goes pending,
 * fires once its condition held for its duration, and resolves when the condition ends (the level
 * rules once it stayed ended for LEVEL_CLEAR_FOR_MS).
 */
import { describe, expect, it } from "vitest";
import { LEVEL_CLEAR_FOR_MS } from "../../src/observability/alert-rules.js";
import { T0, timeline } from "../support/alert-timeline.js";

const MIN = 60_000;
const HOUR = 60 * MIN;

describe("alert rules", () => {
  it("retry exhaustion above 1 % fires after 10 minutes and resolves when it falls", () => {
    const t = timeline();
    const failing = () => {
      t.state.ended += 100;
      t.state.exhausted += 5;
    };
    t.run(9 * MIN, failing);
    expect(t.fired).toEqual([]);
    t.run(2 * MIN, failing);
    expect(t.fired).toEqual(["retry_exhaustion_rate"]);
    const alert = t.firing()[0]!;
    expect(alert.value).toBeCloseTo(0.05);
    expect(alert.threshold).toBe(0.01);
    expect(alert.severity).toBe("critical");
    // Healthy again: once the window no longer holds the bad minutes, it resolves.
    t.run(6 * MIN, () => (t.state.ended += 100));
    expect(t.resolved).toEqual(["retry_exhaustion_rate"]);
  });

  it("a brief exhaustion spike shorter than 10 minutes never fires", () => {
    const t = timeline();
    t.run(3 * MIN, () => {
      t.state.ended += 100;
      t.state.exhausted += 50;
    });
    t.run(30 * MIN, () => (t.state.ended += 100));
    expect(t.fired).toEqual([]);
  });

  it("the oldest open dead-letter record past 24 hours fires at once and resolves after it went", () => {
    const t = timeline({ dlqStuckMs: 10 * HOUR });
    t.state.dlqDepth = 1;
    t.state.dlqOldestAt = T0 - 23 * HOUR;
    t.run(59 * MIN);
    expect(t.fired).toEqual([]);
    t.run(2 * MIN);
    expect(t.fired).toEqual(["dlq_oldest_age"]);
    t.state.dlqDepth = 0;
    t.state.dlqOldestAt = null;
    t.run(LEVEL_CLEAR_FOR_MS);
    expect(t.resolved).toEqual([]);
    t.tick();
    expect(t.resolved).toEqual(["dlq_oldest_age"]);
  });

  it("one endpoint failing while the others are healthy fires for that endpoint", () => {
    const t = timeline();
    const traffic = {
      ep_bad: { attempts: 10, successes: 0 },
      ep_good: { attempts: 50, successes: 50 },
    };
    t.run(4 * MIN, undefined, traffic);
    expect(t.fired).toEqual([]);
    t.run(2 * MIN, undefined, traffic);
    expect(t.fired).toEqual(["endpoint_failing:ep_bad"]);
    expect(t.firing()[0]).toMatchObject({ endpointId: "ep_bad", value: 0, threshold: 0.5 });
    // Its receiver is fixed: successes come back and the alert resolves.
    t.run(11 * MIN, undefined, {
      ep_bad: { attempts: 10, successes: 10 },
      ep_good: { attempts: 50, successes: 50 },
    });
    expect(t.resolved).toEqual(["endpoint_failing"]);
  });

  it("an endpoint failing while everything fails is not singled out", () => {
    const t = timeline();
    t.run(20 * MIN, undefined, {
      ep_a: { attempts: 10, successes: 0 },
      ep_b: { attempts: 10, successes: 1 },
    });
    expect(t.fired).toEqual([]);
  });

  it("an endpoint down behind its open circuit fires with no traffic, and resolves as it closes", () => {
    const t = timeline();
    // Five failures opened its circuit; then nothing but the rest's traffic, for 20 minutes.
    t.tick({ ep_down: { attempts: 5, successes: 0 }, ep_good: { attempts: 50, successes: 50 } });
    t.state.down.set("ep_down", "open");
    t.run(4 * MIN, undefined, { ep_good: { attempts: 50, successes: 50 } });
    expect(t.fired).toEqual([]);
    t.run(20 * MIN, undefined, { ep_good: { attempts: 50, successes: 50 } });
    expect(t.fired).toEqual(["endpoint_failing:ep_down"]);
    // A failed probe, then a good one (half-open): still down, still firing.
    t.tick({ ep_down: { attempts: 1, successes: 0 } });
    t.state.down.set("ep_down", "half-open");
    t.tick({ ep_down: { attempts: 3, successes: 3 } });
    expect(t.resolved).toEqual([]);
    // Closed: judged on the attempts since, not on the failed probe still in the window.
    t.state.down.delete("ep_down");
    t.tick({ ep_down: { attempts: 2, successes: 2 } });
    expect(t.resolved).toEqual(["endpoint_failing"]);
  });

  it("an endpoint down while everything fails is not singled out", () => {
    const t = timeline();
    t.state.down.set("ep_down", "open");
    t.run(20 * MIN, undefined, { ep_other: { attempts: 10, successes: 0 } });
    expect(t.fired).toEqual([]);
  });

  it("a dead-letter queue where nothing leaves for an hour fires, and resolves when one leaves", () => {
    const t = timeline();
    t.state.dlqDepth = 5;
    t.state.dlqOldestAt = T0;
    // Events keep arriving, nothing leaves.
    t.run(59 * MIN, () => (t.state.dlqDepth += 1));
    expect(t.fired).toEqual([]);
    t.run(2 * MIN, () => (t.state.dlqDepth += 1));
    expect(t.fired).toEqual(["dlq_stuck"]);
    t.state.dlqLeft += 1;
    t.tick();
    expect(t.resolved).toEqual(["dlq_stuck"]);
  });

  it("a record leaving the queue through another process of a fleet counts as moving it", () => {
    const t = timeline();
    t.state.dlqDepth = 5;
    t.state.dlqOldestAt = T0;
    // Another process resolves records as fast as new ones arrive; this one sees only the store.
    t.run(90 * MIN, () => {
      t.state.dlqClosedAt = t.now;
    });
    expect(t.fired).toEqual([]);
    // Then nothing leaves anywhere for an hour.
    t.run(61 * MIN);
    expect(t.fired).toEqual(["dlq_stuck"]);
    t.state.dlqClosedAt = t.now;
    t.tick();
    expect(t.resolved).toEqual(["dlq_stuck"]);
  });

  it("the oldest due delivery waiting past the threshold fires, and resolves after it was sent", () => {
    const t = timeline({ queueLagMs: 5 * MIN });
    t.state.oldestDueAt = T0 + 30_000;
    t.run(5 * MIN);
    expect(t.fired).toEqual([]);
    t.run(MIN);
    expect(t.fired).toEqual(["queue_lag"]);
    t.state.oldestDueAt = null;
    t.run(LEVEL_CLEAR_FOR_MS);
    expect(t.resolved).toEqual([]);
    t.tick();
    expect(t.resolved).toEqual(["queue_lag"]);
  });

  it("a failed drill fires, and so does a schedule with no passing drill for too long", () => {
    const t = timeline({ drillMaxAgeMs: 30 * MIN });
    t.state.lastDrill = { at: T0, passed: true };
    t.state.lastDrillPassedAt = T0;
    t.run(25 * MIN);
    expect(t.fired).toEqual([]);
    t.run(10 * MIN);
    expect(t.fired).toEqual(["drill_failing"]);
    t.state.lastDrill = { at: t.now, passed: true };
    t.state.lastDrillPassedAt = t.now;
    t.tick();
    expect(t.resolved).toEqual(["drill_failing"]);
    t.state.lastDrill = { at: t.now, passed: false };
    t.tick();
    expect(t.fired).toEqual(["drill_failing", "drill_failing"]);
  });
});
