/**
 * Alert summaries give durations in minutes or hours, and a threshold set under a minute
 * (HOOKLINE_ALERT_QUEUE_LAG_SECONDS takes 1–86400) fired a critical alert saying "the oldest due
 * delivery has waited 0 min to be sent". Under a minute they say seconds.
 */
import { describe, expect, it } from "vitest";
import { timeline } from "../support/alert-timeline.js";

describe("an alert's summary", () => {
  it("gives a lag under a minute in seconds", () => {
    const t = timeline({ queueLagMs: 10_000 });
    t.state.oldestDueAt = t.now - 15_000;
    const fired = t.tick().fired;
    expect(fired.map((a) => a.summary)).toEqual([
      "the oldest due delivery has waited 45 s to be sent",
    ]);
  });

  it("keeps minutes and hours above a minute", () => {
    const t = timeline({ queueLagMs: 10_000 });
    t.state.oldestDueAt = t.now - 150_000;
    expect(t.tick().fired.map((a) => a.summary)).toEqual([
      "the oldest due delivery has waited 3 min to be sent",
    ]);
  });
});
