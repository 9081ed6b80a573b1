import { describe, expect, it, vi } from "vitest";
import { LoopBudget } from "../../src/engine/loop-budget.js";

const block = (ms: number) => {
  const end = Date.now() + ms;
  while (Date.now() < end);
};
const turn = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * Turns (each after `between`) until the budget is above `than`, for up to 10 s: on a busy
 * machine (the suite runs two files at once) a timer that fires late is lag, which rightly holds
 * the budget down for a while, so a fixed window would fail a budget that grows as it should.
 */
async function grewAbove(
  budget: LoopBudget,
  than: number,
  between: () => void = () => {},
): Promise<number> {
  const until = Date.now() + 10_000;
  while (budget.current <= than && Date.now() < until) {
    between();
    await turn(60);
  }
  return budget.current;
}
/** Judged on fake timers: one judgement per advance, whatever else the machine is doing. */
function onFakeTimers(test: () => void): () => void {
  return () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    try {
      test();
    } finally {
      vi.useRealTimers();
    }
  };
}
const SETTINGS = { highLagMs: 20, lowLagMs: 5, everyMs: 50, slowCallerMs: 5, minPace: 500 };

describe("the engine's event-loop budget", () => {
  it("shrinks while the loop lags and grows back once it is responsive, within its bounds", async () => {
    const budget = new LoopBudget({ ...SETTINGS, max: 1000, min: 64 });
    budget.watch();
    // Hog the loop: every turn is blocked far longer than the lag threshold.
    for (let i = 0; i < 6; i++) {
      block(150);
      await turn(1);
    }
    const shrunk = budget.current;
    expect(shrunk).toBeLessThan(1000);
    expect(shrunk).toBeGreaterThanOrEqual(64);
    // A quiet loop lets it grow back.
    expect(await grewAbove(budget, shrunk)).toBeGreaterThan(shrunk);
    budget.rest();
  });

  // On fake timers: on real ones, a loaded machine's late timer let a judgement pass with no
  // caller in it, which rightly grows the budget, and the test failed on what it does not test.
  it(
    "shrinks while callers wait for their commits even when the loop does not lag, and grows back once they do not",
    onFakeTimers(() => {
      const budget = new LoopBudget({ ...SETTINGS, max: 1000, min: 32 });
      budget.watch();
      // The loop stays responsive (no lag); only the callers' waits say the process is busy.
      for (let i = 0; i < 8; i++) {
        budget.callerWaited(12);
        vi.advanceTimersByTime(SETTINGS.everyMs);
      }
      expect(budget.current).toBe(32);
      // Callers answered quickly (a wait under half the threshold) let delivery have it back.
      budget.callerWaited(1);
      vi.advanceTimersByTime(SETTINGS.everyMs);
      expect(budget.current).toBeGreaterThan(32);
      budget.rest();
    }),
  );

  it(
    "halves what the engine actually holds, not a budget far above it",
    onFakeTimers(() => {
      let held = 200;
      const budget = new LoopBudget({ ...SETTINGS, max: 4096, min: 32 }, () => held);
      budget.watch();
      budget.callerWaited(12);
      vi.advanceTimersByTime(SETTINGS.everyMs);
      expect(budget.current).toBe(100);
      held = 100;
      budget.callerWaited(12);
      vi.advanceTimersByTime(SETTINGS.everyMs);
      expect(budget.current).toBe(50);
      budget.callerWaited(12);
      vi.advanceTimersByTime(SETTINGS.everyMs);
      expect(budget.current).toBe(32);
      budget.rest();
    }),
  );

  it(
    "ignores callers' waits where they are not a signal (a store across the network)",
    onFakeTimers(() => {
      const budget = new LoopBudget({ ...SETTINGS, slowCallerMs: null, max: 1000, min: 32 });
      budget.watch();
      for (let i = 0; i < 5; i++) {
        budget.callerWaited(500);
        vi.advanceTimersByTime(SETTINGS.everyMs);
      }
      expect(budget.current).toBe(1000);
      budget.rest();
    }),
  );

  it(
    "is not shrunk by callers answered within the threshold",
    onFakeTimers(() => {
      const budget = new LoopBudget({ ...SETTINGS, max: 1000, min: 32 });
      budget.watch();
      for (let i = 0; i < 5; i++) {
        budget.callerWaited(4);
        vi.advanceTimersByTime(SETTINGS.everyMs);
      }
      expect(budget.current).toBe(1000);
      budget.rest();
    }),
  );

  it(
    "grows back by doubling while no caller comes, and by steps while callers are answered quickly",
    onFakeTimers(() => {
      let held = 64;
      const budget = new LoopBudget({ ...SETTINGS, max: 4096, min: 32 }, () => held);
      budget.watch();
      budget.callerWaited(12);
      vi.advanceTimersByTime(SETTINGS.everyMs);
      expect(budget.current).toBe(32);
      held = 32;
      budget.callerWaited(1);
      vi.advanceTimersByTime(SETTINGS.everyMs);
      expect(budget.current).toBe(96);
      vi.advanceTimersByTime(SETTINGS.everyMs);
      expect(budget.current).toBe(192);
      vi.advanceTimersByTime(SETTINGS.everyMs * 5);
      expect(budget.current).toBe(4096);
      budget.rest();
    }),
  );

  it(
    "stops judging once a judgement finds nothing held, and starts again when work comes",
    onFakeTimers(() => {
      let held = 10;
      const budget = new LoopBudget({ ...SETTINGS, max: 4096, min: 32 }, () => held);
      budget.watch();
      held = 0;
      budget.callerWaited(12);
      // Emptying in between does not stop the judgement that is due.
      vi.advanceTimersByTime(SETTINGS.everyMs);
      expect(budget.current).toBe(32);
      expect(vi.getTimerCount()).toBe(0);
      held = 5;
      budget.watch();
      expect(vi.getTimerCount()).toBe(1);
      budget.rest();
    }),
  );
});
