/**
 * A level alert (a value read from the store against a threshold) resolves only once its
 * condition has stayed clear for LEVEL_CLEAR_FOR_MS: a backlog hovering around the threshold
 * keeps one alert firing instead of firing and resolving every few minutes, and a condition that
 * really ended still resolves, once, a quiet period later.
 */
import { describe, expect, it } from "vitest";
import { LEVEL_CLEAR_FOR_MS } from "../../src/observability/alert-rules.js";
import { TICK, timeline } from "../support/alert-timeline.js";

const MIN = 60_000;
const HOUR = 60 * MIN;

type Timeline = ReturnType<typeof timeline>;

/** Each level rule, its threshold, and how to make its value `age` at the next tick (null: none). */
const levels = [
  {
    rule: "queue_lag",
    threshold: 5 * MIN,
    set: (t: Timeline, age: number | null) => {
      t.state.oldestDueAt = age === null ? null : t.now + TICK - age;
    },
  },
  {
    rule: "dlq_oldest_age",
    threshold: 24 * HOUR,
    set: (t: Timeline, age: number | null) => {
      t.state.dlqDepth = age === null ? 0 : 3;
      t.state.dlqOldestAt = age === null ? null : t.now + TICK - age;
    },
  },
];

describe.each(levels)("$rule", ({ rule, threshold, set }) => {
  /** A timeline whose `rule` fired once, with that alert. */
  function fired() {
    const t = timeline();
    t.run(2 * MIN, () => set(t, threshold + MIN));
    expect(t.fired).toEqual([rule]);
    const alert = t.firing().find((a) => a.rule === rule)!;
    return { t, alert };
  }

  it("hovering around its threshold keeps one alert firing, with its id and since", () => {
    const { t, alert } = fired();
    // Over for two minutes, under for two, for the next hour.
    let n = 0;
    t.run(HOUR, () => set(t, threshold + (Math.floor(n++ / 4) % 2 ? MIN : -MIN)));
    expect(t.fired).toEqual([rule]);
    expect(t.resolved).toEqual([]);
    expect(t.firing().filter((a) => a.rule === rule)).toEqual([
      expect.objectContaining({ id: alert.id, since: alert.since, resolvedAt: null }),
    ]);
  });

  it("dropping under and staying there resolves exactly once, a quiet period later", () => {
    const { t, alert } = fired();
    const clearFrom = t.now + TICK;
    // Clear at every sample from `clearFrom` on, but not yet for the whole quiet period.
    t.run(LEVEL_CLEAR_FOR_MS, () => set(t, threshold - MIN));
    expect(t.resolved).toEqual([]);
    set(t, threshold - MIN);
    expect(t.tick().resolved).toEqual([
      expect.objectContaining({
        id: alert.id,
        since: alert.since,
        resolvedAt: clearFrom + LEVEL_CLEAR_FOR_MS,
      }),
    ]);
    t.run(HOUR, () => set(t, null));
    expect(t.resolved).toEqual([rule]);
    expect(t.fired).toEqual([rule]);
  });
});
