/**
 * A preset promises a number of attempts. Its window is there to bound a delivery's life, not to
 * cut that promise short: even when every retry draws the longest delay its jitter allows and
 * every attempt takes the longest request timeout, the last attempt still falls inside the window.
 */
import { describe, expect, it } from "vitest";
import {
  ATTEMPT_ALLOWANCE_MS,
  PRESETS,
  jitterBounds,
  nextAttempt,
  resolveLadder,
  type PresetName,
} from "../../src/engine/ladder.js";

const FIRST = Date.UTC(2026, 0, 1);

describe("every preset's window", () => {
  for (const name of Object.keys(PRESETS) as PresetName[]) {
    it(`${name}: holds all its attempts at the top of the jitter`, () => {
      const ladder = resolveLadder({ preset: name });
      const widest = ladder.nominalDelaysMs.reduce(
        (sum, _d, i) => sum + jitterBounds(ladder, i).maxMs + ATTEMPT_ALLOWANCE_MS,
        0,
      );
      expect(widest).toBeLessThanOrEqual(ladder.windowMs);
    });

    it(`${name}: a delivery that always fails gets every attempt, however the jitter falls`, () => {
      const ladder = resolveLadder({ preset: name });
      // The highest draw there is, and each attempt answering only at the longest timeout.
      let now = FIRST + ATTEMPT_ALLOWANCE_MS;
      let made = 1;
      for (;;) {
        const step = nextAttempt({
          ladder,
          attemptsMade: made,
          firstAttemptAt: FIRST,
          now,
          random: () => 1,
        });
        if (step.kind === "exhausted") {
          expect(step.reason).toBe("attempts");
          break;
        }
        made++;
        now = step.at + ATTEMPT_ALLOWANCE_MS;
      }
      expect(made).toBe(ladder.attempts);
    });
  }
});
