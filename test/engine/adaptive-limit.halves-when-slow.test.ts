import { describe, it, expect } from "vitest";
import { AdaptiveLimit, DEFAULT_ADAPTIVE } from "../../src/engine/adaptive-limit.js";
import { settableClock } from "../support/fake-clock.js";

function feed(
  limit: AdaptiveLimit,
  clock: { advance(ms: number): void },
  durations: number[],
  gapMs = 0,
) {
  for (const d of durations) {
    limit.record(d);
    clock.advance(gapMs);
  }
}

const repeat = (n: number, v: number): number[] => Array.from({ length: n }, () => v);

describe("the adaptive limit halves when an endpoint is slow", () => {
  it("keeps the limit while p99 is at or under 3 s", () => {
    const clock = settableClock();
    const limit = new AdaptiveLimit(16, DEFAULT_ADAPTIVE, clock);
    feed(limit, clock, repeat(50, 3000), 200);
    expect(limit.effective).toBe(16);
    expect(limit.p99()).toBe(3000);
  });

  it("halves once 10 samples show a slow p99, then at most every 5 s, never below 1", () => {
    const clock = settableClock();
    const limit = new AdaptiveLimit(16, DEFAULT_ADAPTIVE, clock);
    feed(limit, clock, repeat(9, 5000));
    expect(limit.effective).toBe(16);
    feed(limit, clock, [5000]);
    expect(limit.effective).toBe(8);
    // More slow samples within the same 5 s change nothing.
    feed(limit, clock, repeat(20, 5000), 100);
    expect(limit.effective).toBe(8);
    const seen: number[] = [];
    for (let i = 0; i < 6; i++) {
      clock.advance(5000);
      limit.record(5000);
      seen.push(limit.effective);
    }
    expect(seen).toEqual([4, 2, 1, 1, 1, 1]);
  });

  it("doubles back toward the limit, never above it, once the slow samples leave the window", () => {
    const clock = settableClock();
    const limit = new AdaptiveLimit(10, DEFAULT_ADAPTIVE, clock);
    feed(limit, clock, repeat(10, 8000));
    clock.advance(5000);
    limit.record(8000);
    expect(limit.effective).toBe(2);
    clock.advance(DEFAULT_ADAPTIVE.windowMs + 1);
    const seen: number[] = [];
    for (let i = 0; i < 4; i++) {
      feed(limit, clock, repeat(10, 50));
      seen.push(limit.effective);
      clock.advance(5000);
    }
    expect(seen).toEqual([4, 8, 10, 10]);
  });

  it("judges p99, so a single slow outlier among 100 fast ones does not count", () => {
    const clock = settableClock();
    const limit = new AdaptiveLimit(8, DEFAULT_ADAPTIVE, clock);
    feed(limit, clock, [...repeat(99, 100), 30_000], 10);
    expect(limit.p99()).toBe(100);
    expect(limit.effective).toBe(8);
    feed(limit, clock, [30_000], 10);
    expect(limit.p99()).toBe(30_000);
  });

  it("p99 is null with no samples in the window and memory stays bounded", () => {
    const clock = settableClock();
    const limit = new AdaptiveLimit(4, DEFAULT_ADAPTIVE, clock);
    expect(limit.p99()).toBeNull();
    feed(limit, clock, repeat(10_000, 10));
    expect(limit.p99()).toBe(10);
    clock.advance(DEFAULT_ADAPTIVE.windowMs + 1);
    expect(limit.p99()).toBeNull();
  });

  it("judges the last 512 samples, whether it has seen a few or thousands", () => {
    const nearestRank99 = (xs: number[]) =>
      [...xs].sort((a, b) => a - b)[Math.ceil(0.99 * xs.length) - 1];
    // Distinct durations in a scrambled order, so a sample lost or kept twice shows in the p99.
    const durations = Array.from({ length: 1_300 }, (_, i) => (i * 7919) % 1_300);
    for (const n of [1, 15, 16, 17, 33, 100, 511, 512, 513, 1_300]) {
      const clock = settableClock();
      const limit = new AdaptiveLimit(4, DEFAULT_ADAPTIVE, clock);
      feed(limit, clock, durations.slice(0, n));
      expect(limit.p99(), `after ${n} samples`).toBe(
        nearestRank99(durations.slice(Math.max(0, n - 512), n)),
      );
    }
  });

  it("setLimit moves an undegraded limit at once and lowers a degraded one only if needed", () => {
    const clock = settableClock();
    const limit = new AdaptiveLimit(8, DEFAULT_ADAPTIVE, clock);
    limit.setLimit(12);
    expect([limit.limit, limit.effective]).toEqual([12, 12]);
    feed(limit, clock, repeat(10, 9000));
    expect(limit.effective).toBe(6);
    limit.setLimit(20);
    expect([limit.limit, limit.effective]).toEqual([20, 6]);
    limit.setLimit(4);
    expect([limit.limit, limit.effective]).toEqual([4, 4]);
    expect(() => limit.setLimit(0)).toThrow(RangeError);
    expect(() => new AdaptiveLimit(1.5, DEFAULT_ADAPTIVE, clock)).toThrow(RangeError);
  });
});
