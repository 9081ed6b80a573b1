/**
 * A retry policy field hookline would not act on is refused, never silently dropped: a team that
 * writes `{ "preset": "default", "jitter": { "strategy": "none" } }` or misspells `window` must
 * learn at once that the policy in force is not the one it meant. The policy is stored as sent,
 * so an ignored field would also be read back as if it applied.
 */
import { describe, expect, it } from "vitest";
import { resolveLadder, type RetryPolicySpec } from "../../src/engine/ladder.js";
import { validatePolicy } from "../../src/engine/policy.js";
import { ValidationError } from "../../src/errors.js";

function problemsOf(policy: unknown): { loc: (string | number)[]; type: string }[] {
  try {
    validatePolicy(policy, ["deliveryPolicy"]);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).problems.map(({ loc, type }) => ({ loc, type }));
  }
  return [];
}

describe("a retry policy with a field its form does not take", () => {
  it("a preset takes nothing besides its name", () => {
    expect(problemsOf({ retry: { preset: "default", jitter: { strategy: "none" } } })).toEqual([
      { loc: ["deliveryPolicy", "retry", "jitter"], type: "extra_forbidden" },
    ]);
    expect(problemsOf({ retry: { preset: "svix", window: 3600 } })).toEqual([
      { loc: ["deliveryPolicy", "retry", "window"], type: "extra_forbidden" },
    ]);
  });

  it("an explicit list refuses a misspelt window and the exponential form's fields", () => {
    expect(problemsOf({ retry: { delays: [10, 60], windw: 600 } })).toEqual([
      { loc: ["deliveryPolicy", "retry", "windw"], type: "extra_forbidden" },
    ]);
    expect(problemsOf({ retry: { delays: [10, 60], window: 600, attempts: 9 } })).toEqual([
      { loc: ["deliveryPolicy", "retry", "attempts"], type: "extra_forbidden" },
    ]);
  });

  it("an exponential rule refuses maxDelay (its cap is its maximum delay)", () => {
    const rule = { base: 30, factor: 2, cap: 600, attempts: 5, window: 3600 };
    expect(problemsOf({ retry: { ...rule, maxDelay: 60 } })).toEqual([
      { loc: ["deliveryPolicy", "retry", "maxDelay"], type: "extra_forbidden" },
    ]);
  });

  it("a jitter strategy refuses a ratio it would not use", () => {
    expect(
      problemsOf({
        retry: { delays: [10], window: 600, jitter: { strategy: "full", ratio: 0.5 } },
      }),
    ).toEqual([{ loc: ["deliveryPolicy", "retry", "jitter", "ratio"], type: "extra_forbidden" }]);
  });

  it("every documented field of each form is still taken", () => {
    const specs: RetryPolicySpec[] = [
      { preset: "svix" },
      { delays: [10, 60, 600], jitter: { strategy: "full" }, window: 7200, maxDelay: 900 },
      {
        base: 30,
        factor: 2,
        cap: 3600,
        attempts: 10,
        window: 86400,
        jitter: { strategy: "proportional", ratio: 0.2 },
      },
    ];
    for (const spec of specs) {
      expect(problemsOf({ retry: spec })).toEqual([]);
      expect(() => resolveLadder(spec)).not.toThrow();
    }
  });
});
