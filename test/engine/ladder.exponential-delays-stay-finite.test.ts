import { describe, expect, it } from "vitest";
import { nextAttempt, resolveLadder } from "../../src/engine/ladder.js";
import { validatePolicy } from "../../src/engine/policy.js";

// An exponential rule whose base rounds to 0 ms and whose factor overflows to Infinity before the
// last retry: 0 * Infinity is NaN, and Math.min(cap, NaN) is NaN.
const spec = { base: 0, factor: 3_000_000, cap: 60, attempts: 50, window: 86_400 };

describe("an exponential ladder's delays stay within [0, cap]", () => {
  it("is either refused or resolves to finite delays", () => {
    let ladder;
    try {
      validatePolicy({ retry: spec }, ["deliveryPolicy"]);
      ladder = resolveLadder(spec);
    } catch {
      return; // refusing the policy is fine too
    }
    for (const d of ladder.nominalDelaysMs) {
      expect(Number.isFinite(d)).toBe(true);
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThanOrEqual(ladder.maxDelayMs);
    }
  });

  it("never schedules a retry at NaN", () => {
    const ladder = resolveLadder(spec);
    const step = nextAttempt({
      ladder,
      attemptsMade: 49,
      firstAttemptAt: 0,
      now: 0,
      random: () => 0.5,
    });
    if (step.kind === "retry") {
      expect(Number.isFinite(step.at)).toBe(true);
      expect(step.at).toBeLessThanOrEqual(ladder.windowMs);
    }
  });
});
