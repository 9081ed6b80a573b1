/**
 * The wall clock set back while hookline runs (NTP stepping it, a VM restored) left the alert
 * rules judging by samples stamped after "now": a rate's window reached back to the oldest of
 * them, an hour of healthy traffic diluting a failure that began after the step, and an alert
 * whose condition had ended just before the step waited the step's length to resolve. Samples from after now tell
 * nothing of how long ago they were taken (as the breaker treats failures so stamped): the rules
 * judge from the step on as if just started, and an outage is alerted on within its rule's
 * window and duration, as without the step.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_THRESHOLDS, LEVEL_CLEAR_FOR_MS } from "../../src/observability/alert-rules.js";
import { T0, timeline } from "../support/alert-timeline.js";

const MIN = 60_000;
const HOUR = 60 * MIN;

describe("alert rules when the clock is set back an hour", () => {
  it("fire for a failure that begins after the step within the window and the duration", () => {
    const t = timeline();
    t.run(HOUR, () => (t.state.ended += 1_000));
    t.step(-HOUR);
    t.run(16 * MIN, () => {
      t.state.ended += 100;
      t.state.exhausted += 5;
    });
    expect(t.fired).toEqual(["retry_exhaustion_rate"]);
  });

  it("fire for a failure pending at the step within the duration, not the step later", () => {
    const t = timeline();
    const failing = () => {
      t.state.ended += 100;
      t.state.exhausted += 5;
    };
    t.run(10 * MIN, () => (t.state.ended += 100));
    t.run(5 * MIN, failing);
    expect(t.fired).toEqual([]);
    t.step(-HOUR);
    t.run(16 * MIN, failing);
    expect(t.fired).toEqual(["retry_exhaustion_rate"]);
  });

  it("resolve an alert whose condition ended before the step once it stayed ended", () => {
    const t = timeline({ dlqStuckMs: 10 * HOUR });
    t.state.dlqDepth = 1;
    t.state.dlqOldestAt = T0 - 25 * HOUR;
    t.tick();
    expect(t.fired).toEqual(["dlq_oldest_age"]);
    t.state.dlqDepth = 0;
    t.state.dlqOldestAt = null;
    t.tick();
    t.step(-HOUR);
    t.run(LEVEL_CLEAR_FOR_MS + 2 * MIN);
    expect(t.resolved).toEqual(["dlq_oldest_age"]);
  });

  it("judge an alert taken on just before the step once they sampled its window", () => {
    const t = timeline();
    t.run(5 * MIN);
    // Another worker left, firing it.
    t.rules.adopt(
      [
        {
          id: "alrt_taken",
          rule: "endpoint_failing",
          severity: "warning",
          summary: "firing before a restart",
          endpointId: "ep_bad",
          value: 0,
          threshold: 0.5,
          since: T0 - HOUR,
          resolvedAt: null,
          supersededBy: null,
        },
      ],
      t.now,
    );
    t.step(-HOUR);
    t.run(DEFAULT_THRESHOLDS.windowMs + 2 * MIN, undefined, {
      ep_bad: { attempts: 5, successes: 5 },
    });
    expect(t.resolved).toEqual(["endpoint_failing"]);
  });
});
