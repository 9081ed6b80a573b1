import { describe, it, expect } from "vitest";
import { ATTEMPT_ALLOWANCE_MS, nextAttempt, resolveLadder } from "../../src/engine/ladder.js";

const mid = (): number => 0.5;

describe("the window bounds the ladder", () => {
  it("gives up with reason window when the next nominal delay would pass the window", () => {
    const ladder = resolveLadder({ delays: [10, 20, 40], window: 45 });
    const first = 1_000_000;
    const a = nextAttempt({
      ladder,
      attemptsMade: 1,
      firstAttemptAt: first,
      now: first,
      random: mid,
    });
    expect(a).toEqual({ kind: "retry", at: first + 10_000, delayMs: 10_000, source: "ladder" });
    const b = nextAttempt({
      ladder,
      attemptsMade: 2,
      firstAttemptAt: first,
      now: first + 10_000,
      random: mid,
    });
    expect(b).toEqual({ kind: "retry", at: first + 30_000, delayMs: 20_000, source: "ladder" });
    const c = nextAttempt({
      ladder,
      attemptsMade: 3,
      firstAttemptAt: first,
      now: first + 30_000,
      random: mid,
    });
    expect(c).toEqual({ kind: "exhausted", reason: "window" });
  });

  it("allows an attempt exactly at the end of the window", () => {
    const ladder = resolveLadder({ delays: [10], window: 10 });
    const step = nextAttempt({ ladder, attemptsMade: 1, firstAttemptAt: 0, now: 0, random: mid });
    expect(step).toEqual({ kind: "retry", at: 10_000, delayMs: 10_000, source: "ladder" });
  });

  it("counts time spent in the attempts themselves, not only the delays", () => {
    const ladder = resolveLadder({ delays: [10, 10], window: 25 });
    // The first attempt took 8 s to time out, so the retry lands at 18 s and the next at 28 s.
    const step = nextAttempt({
      ladder,
      attemptsMade: 2,
      firstAttemptAt: 0,
      now: 18_000,
      random: mid,
    });
    expect(step).toEqual({ kind: "exhausted", reason: "window" });
  });

  it("reports attempts, not window, when the attempts ran out first", () => {
    const ladder = resolveLadder({ delays: [1], window: 3600 });
    const step = nextAttempt({
      ladder,
      attemptsMade: 2,
      firstAttemptAt: 0,
      now: 1000,
      random: mid,
    });
    expect(step).toEqual({ kind: "exhausted", reason: "attempts" });
  });

  it("the manual preset never retries", () => {
    const ladder = resolveLadder({ preset: "manual" });
    const step = nextAttempt({ ladder, attemptsMade: 1, firstAttemptAt: 0, now: 0, random: mid });
    expect(step).toEqual({ kind: "exhausted", reason: "attempts" });
  });

  it("without a window, an explicit list gets one wide enough for every jittered delay and the attempts' own time", () => {
    const ladder = resolveLadder({
      delays: [0.05, 0.05, 0.1],
      jitter: { strategy: "proportional", ratio: 0.5 },
    });
    expect(ladder.windowMs).toBe(75 + 75 + 150 + 3 * ATTEMPT_ALLOWANCE_MS);
    let now = 0;
    for (let made = 1; made < ladder.attempts; made++) {
      const step = nextAttempt({
        ladder,
        attemptsMade: made,
        firstAttemptAt: 0,
        now,
        random: () => 0.999999,
      });
      expect(step.kind).toBe("retry");
      // Each attempt itself takes up to the longest request timeout before the next is decided.
      if (step.kind === "retry") now = step.at + ATTEMPT_ALLOWANCE_MS;
    }
  });
});
