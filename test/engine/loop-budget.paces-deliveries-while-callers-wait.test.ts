/**
 * While API callers wait too long for their commits, the loop budget paces how many deliveries
 * the engine may start a second: halved from what was started, never below the floor, grown back
 * while callers are answered quickly, lifted at once when nobody calls.
 */
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { LoopBudget, nextPace, type CallerVerdict } from "../../src/engine/loop-budget.js";

const SETTINGS = {
  max: 4096,
  min: 32,
  highLagMs: 20,
  lowLagMs: 5,
  everyMs: 50,
  slowCallerMs: 5,
  minPace: 100,
};
const UNPACED = Number.POSITIVE_INFINITY;

describe("the pace rule", () => {
  it("halves what was started while callers waited, down to the floor", () => {
    expect(nextPace(UNPACED, 4_000, "slow", 100)).toBe(2_000);
    // From what was started, not from a pace far above it.
    expect(nextPace(10_000, 600, "slow", 100)).toBe(300);
    expect(nextPace(300, 300, "slow", 100)).toBe(150);
    expect(nextPace(150, 150, "slow", 100)).toBe(100);
  });

  it("lifts the pace when nobody calls, grows it while callers are answered quickly", () => {
    expect(nextPace(100, 100, "none", 100)).toBe(UNPACED);
    expect(nextPace(400, 400, "quick", 100)).toBe(500);
    expect(nextPace(400, 400, "steady", 100)).toBe(400);
    // The floor rises with the callers' messages: a steady pace does not stay below it.
    expect(nextPace(400, 400, "steady", 600)).toBe(600);
    // Well above what delivery asks for, it paces nothing: lifted.
    expect(nextPace(400, 150, "quick", 100)).toBe(UNPACED);
  });

  it("never paces below the floor, and only callers answered late lower it", () => {
    const verdict = fc.constantFrom<CallerVerdict>("slow", "quick", "steady", "none");
    const pace = fc.oneof(fc.constant(UNPACED), fc.double({ min: 100, max: 1e6, noNaN: true }));
    fc.assert(
      fc.property(pace, fc.double({ min: 0, max: 1e6, noNaN: true }), verdict, (p, started, v) => {
        const next = nextPace(p, started, v, 100);
        expect(next).toBeGreaterThanOrEqual(100);
        if (v !== "slow") expect(next).toBeGreaterThanOrEqual(p);
      }),
    );
  });
});

describe("the loop budget's pace", () => {
  /** A budget whose pace runs on `clock`, on fake timers; the engine holds 10 throughout. */
  function withBudget(test: (budget: LoopBudget, judge: (waitedMs?: number) => void) => void) {
    return () => {
      vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
      const clock = { now: 0 };
      const budget = new LoopBudget(
        SETTINGS,
        () => 10,
        () => clock.now,
      );
      /** One judgement, a caller having waited `waitedMs` (none without), as time passes. */
      const judge = (waitedMs?: number) => {
        if (waitedMs !== undefined) budget.callerWaited(waitedMs);
        clock.now += SETTINGS.everyMs;
        vi.advanceTimersByTime(SETTINGS.everyMs);
      };
      try {
        budget.watch();
        test(budget, judge);
      } finally {
        budget.rest();
        vi.useRealTimers();
      }
    };
  }

  it(
    "lets deliveries start at the pace while callers wait, and all at once when they stop",
    withBudget((budget, judge) => {
      // Unpaced: every delivery may start.
      for (let i = 0; i < 1_000; i++) expect(budget.take()).toBe(0);
      judge(12);
      // 1,000 started in 50 ms while a caller waited: half that rate, 10,000 a second.
      expect(budget.pace).toBe(10_000);
      // A twentieth of a second's worth at once; then nothing until the next batch has built up.
      for (let i = 0; i < 500; i++) expect(budget.take()).toBe(0);
      expect(budget.take()).toBe(50);

      // Still waiting: halved from what it let start, down to the floor.
      for (let i = 0; i < 8; i++) judge(12);
      expect(budget.pace).toBe(SETTINGS.minPace);
      // Nobody calls: lifted at the next judgement.
      judge();
      expect(budget.pace).toBe(UNPACED);
      for (let i = 0; i < 1_000; i++) expect(budget.take()).toBe(0);
    }),
  );

  it(
    "never paces below half the messages the callers posted meanwhile",
    withBudget((budget, judge) => {
      // 40 callers in 50 ms: 800 messages a second; half as many deliveries may start.
      for (let i = 0; i < 40; i++) budget.callerWaited(12);
      judge();
      expect(budget.pace).toBe(400);
      for (let i = 0; i < 40; i++) budget.callerWaited(12);
      judge();
      expect(budget.pace).toBe(400);
      // Fewer callers: the floor is the fixed one again.
      judge(12);
      expect(budget.pace).toBe(SETTINGS.minPace);
    }),
  );

  it(
    "grows back while callers are answered quickly",
    withBudget((budget, judge) => {
      judge(12);
      expect(budget.pace).toBe(SETTINGS.minPace);
      let pace = budget.pace;
      for (let i = 0; i < 3; i++) {
        // Deliveries start as fast as the pace lets them, so it is what paces them.
        while (budget.take() === 0);
        judge(1);
        expect(budget.pace).toBeGreaterThan(pace);
        pace = budget.pace;
      }
    }),
  );

  it(
    "is lifted when the engine holds nothing, and never set where callers' waits are no signal",
    withBudget((_, judge) => {
      let held = 10;
      const budget = new LoopBudget(SETTINGS, () => held);
      budget.watch();
      budget.callerWaited(12);
      held = 0;
      judge();
      // The judgement that found nothing held stops judging: nothing is left to pace.
      expect(budget.pace).toBe(UNPACED);

      const remote = new LoopBudget({ ...SETTINGS, slowCallerMs: null }, () => 10);
      remote.watch();
      for (let i = 0; i < 5; i++) {
        remote.callerWaited(500);
        judge();
      }
      expect(remote.pace).toBe(UNPACED);
      remote.rest();
    }),
  );
});
