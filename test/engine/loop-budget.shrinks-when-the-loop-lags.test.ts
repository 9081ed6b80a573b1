import { describe, expect, it } from "vitest";
import { LoopBudget } from "../../src/engine/loop-budget.js";

const block = (ms: number) => {
  const end = Date.now() + ms;
  while (Date.now() < end);
};
const turn = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the engine's event-loop budget", () => {
  it("shrinks while the loop lags and grows back once it is responsive, within its bounds", async () => {
    const budget = new LoopBudget({ max: 1000, min: 64, highLagMs: 20, lowLagMs: 5, everyMs: 50 });
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
    await turn(600);
    expect(budget.current).toBeGreaterThan(shrunk);
    budget.rest();
  });
});
