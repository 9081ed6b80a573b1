/**
 * The loop budget tells the engine when API callers come (at the first one, at once) and when
 * they have gone (after QUIET_JUDGEMENTS judgements in a row without one), once each way: the
 * sender threads make way for the callers meanwhile.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_LOOP_BUDGET, LoopBudget, QUIET_JUDGEMENTS } from "../../src/engine/loop-budget.js";

const SETTINGS = { ...DEFAULT_LOOP_BUDGET, everyMs: 50 };

describe("the loop budget and the API's callers", () => {
  let told: boolean[];
  let held: number;
  let budget: LoopBudget;
  /** One judgement's worth of time. */
  const judge = () => vi.advanceTimersByTime(SETTINGS.everyMs);

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    told = [];
    held = 10;
    budget = new LoopBudget(
      SETTINGS,
      () => held,
      () => 0,
      (calling) => told.push(calling),
    );
    budget.watch();
  });
  afterEach(() => {
    budget.rest();
    vi.useRealTimers();
  });

  it("says at the first caller that callers are there, and only once while they keep coming", () => {
    budget.callerWaited(1);
    expect(told).toEqual([true]);
    for (let i = 0; i < 10; i++) {
      budget.callerWaited(1);
      judge();
    }
    expect(told).toEqual([true]);
  });

  it("says they have gone only after judgements in a row without one", () => {
    // The judgement that saw the caller, then all but one of the quiet ones.
    budget.callerWaited(1);
    for (let i = 0; i < QUIET_JUDGEMENTS; i++) judge();
    expect(told).toEqual([true]);
    // A caller before the last quiet judgement starts the count again.
    budget.callerWaited(1);
    for (let i = 0; i < QUIET_JUDGEMENTS; i++) judge();
    expect(told).toEqual([true]);
    judge();
    expect(told).toEqual([true, false]);
    for (let i = 0; i < 2 * QUIET_JUDGEMENTS; i++) judge();
    expect(told).toEqual([true, false]);
    // And they come back.
    budget.callerWaited(1);
    expect(told).toEqual([true, false, true]);
  });

  it("says nothing while nobody has called", () => {
    for (let i = 0; i < 2 * QUIET_JUDGEMENTS; i++) judge();
    expect(told).toEqual([]);
  });

  it("finds callers gone once the engine that went idle has work again", () => {
    budget.callerWaited(1);
    held = 0;
    // The judgement that finds nothing held stops judging; callers count as there meanwhile.
    for (let i = 0; i < 2 * QUIET_JUDGEMENTS; i++) judge();
    expect(told).toEqual([true]);
    held = 10;
    budget.watch();
    for (let i = 0; i < QUIET_JUDGEMENTS; i++) judge();
    expect(told).toEqual([true, false]);
  });
});
