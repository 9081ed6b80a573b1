import { describe, it, expect } from "vitest";
import { formatDuration, publishSchedule, resolveLadder } from "../../src/engine/ladder.js";

describe("the published schedule", () => {
  it("describes the default preset in plain English", () => {
    const s = publishSchedule(resolveLadder({ preset: "default" }));
    expect(s.description).toBe(
      "8 attempts: at once, then after 30 s, 2 min, 8 min, 32 min, 2 h 8 min, 5 h, 5 h " +
        "(±20 % jitter), never later than 24 h after the first attempt",
    );
    expect(s).toMatchObject({
      preset: "default",
      attempts: 8,
      windowSeconds: 86_400,
      maxDelaySeconds: 18_000,
    });
  });

  it("lists each retry with its nominal delay, jitter range and offset from the first attempt", () => {
    const s = publishSchedule(resolveLadder({ preset: "default" }));
    expect(s.retries[0]).toEqual({
      attempt: 2,
      nominalDelaySeconds: 30,
      minDelaySeconds: 24,
      maxDelaySeconds: 36,
      nominalOffsetSeconds: 30,
    });
    expect(s.retries[1]?.nominalOffsetSeconds).toBe(150);
    // The cap clips upward jitter on the longest delays.
    expect(s.retries.at(-1)).toMatchObject({
      attempt: 8,
      minDelaySeconds: 14_400,
      maxDelaySeconds: 18_000,
    });
    expect(s.retries.at(-1)?.nominalOffsetSeconds).toBe(46_230);
  });

  it("describes a single-attempt policy", () => {
    const s = publishSchedule(resolveLadder({ preset: "manual" }));
    expect(s.description).toBe("1 attempt, at once; no retries");
    expect(s.retries).toEqual([]);
  });

  it("says so when the window cuts the schedule short", () => {
    const s = publishSchedule(resolveLadder({ delays: [10, 20, 40], window: 45 }));
    expect(s.description).toBe(
      "4 attempts: at once, then after 10 s, 20 s, 40 s (no jitter), never later than 45 s after " +
        "the first attempt; the window leaves room for only 3 attempts on the nominal schedule",
    );
  });

  it("counts one attempt in the singular", () => {
    const s = publishSchedule(resolveLadder({ delays: [60], window: 30 }));
    expect(s.description).toContain("the window leaves room for only 1 attempt on the nominal");
  });

  it("describes the other jitter strategies", () => {
    const describe = (strategy: "full" | "equal" | "decorrelated"): string =>
      publishSchedule(resolveLadder({ delays: [1, 2, 4], jitter: { strategy }, maxDelay: 60 }))
        .description;
    expect(describe("full")).toContain("(full jitter: anywhere from 0 to each delay)");
    expect(describe("equal")).toContain("(equal jitter: from half of each delay to the delay)");
    expect(describe("decorrelated")).toContain(
      "(decorrelated jitter: from 1 s to three times the previous delay, at most 60 s)",
    );
  });

  it("publishes the decorrelated envelope: from the first delay up to 3^n times it, capped", () => {
    const s = publishSchedule(
      resolveLadder({ delays: [1, 2, 4, 8], jitter: { strategy: "decorrelated" }, maxDelay: 20 }),
    );
    expect(s.retries.map((r) => [r.minDelaySeconds, r.maxDelaySeconds])).toEqual([
      [1, 3],
      [1, 9],
      [1, 20],
      [1, 20],
    ]);
  });

  it("formats durations the way the description uses them", () => {
    expect(formatDuration(50)).toBe("50 ms");
    expect(formatDuration(1500)).toBe("1.5 s");
    expect(formatDuration(60_000)).toBe("60 s");
    expect(formatDuration(150_000)).toBe("2 min 30 s");
    expect(formatDuration(3_599_999)).toBe("1 h");
    expect(formatDuration(80 * 3_600_000)).toBe("80 h");
    expect(formatDuration(30 * 86_400_000)).toBe("30 d");
  });
});
