import { describe, it, expect } from "vitest";
import { ValidationError } from "../../src/errors.js";
import { resolveLadder, type RetryPolicySpec } from "../../src/engine/ladder.js";

function problemsOf(
  spec: unknown,
  path?: (string | number)[],
): { loc: (string | number)[]; type: string }[] {
  try {
    resolveLadder(spec as RetryPolicySpec, path);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).problems.map(({ loc, type }) => ({ loc, type }));
  }
  throw new Error("expected a ValidationError");
}

const locs = (spec: unknown, path?: (string | number)[]): (string | number)[][] =>
  problemsOf(spec, path).map((p) => p.loc);

describe("retry policy validation", () => {
  it("rejects a decreasing explicit list, naming the index that went down", () => {
    expect(problemsOf({ delays: [5, 10, 8, 20] })).toEqual([
      { loc: ["retry", "delays", 2], type: "decreasing" },
    ]);
  });

  it("compares against the largest delay so far, flagging each later offender", () => {
    expect(locs({ delays: [5, 30, 10, 20, 40] })).toEqual([
      ["retry", "delays", 2],
      ["retry", "delays", 3],
    ]);
  });

  it("names every bad field at once, under the given path", () => {
    const spec = { base: -1, factor: 0.5, cap: 8 * 86_400, attempts: 51, window: 31 * 86_400 };
    expect(locs(spec, ["policies", 0, "retry"])).toEqual([
      ["policies", 0, "retry", "base"],
      ["policies", 0, "retry", "cap"],
      ["policies", 0, "retry", "factor"],
      ["policies", 0, "retry", "attempts"],
      ["policies", 0, "retry", "window"],
    ]);
  });

  it("enforces attempts from 1 to 50", () => {
    const ok = { base: 1, factor: 2, cap: 60, window: 3600 };
    expect(resolveLadder({ ...ok, attempts: 50 }).attempts).toBe(50);
    expect(resolveLadder({ ...ok, attempts: 1 }).nominalDelaysMs).toEqual([]);
    expect(locs({ ...ok, attempts: 0 })).toEqual([["retry", "attempts"]]);
    expect(locs({ ...ok, attempts: 2.5 })).toEqual([["retry", "attempts"]]);
    expect(locs({ delays: Array.from({ length: 50 }, () => 1), window: 3600 })).toEqual([
      ["retry", "delays"],
    ]);
  });

  it("enforces delays from 0 to 7 days", () => {
    expect(resolveLadder({ delays: [0, 7 * 86_400], window: 8 * 86_400 }).attempts).toBe(3);
    expect(locs({ delays: [-1] })).toEqual([["retry", "delays", 0]]);
    expect(locs({ delays: [1, 7 * 86_400 + 1] })).toEqual([["retry", "delays", 1]]);
    expect(locs({ delays: [1, Number.NaN] })).toEqual([["retry", "delays", 1]]);
    expect(locs({ delays: [1], maxDelay: 0.5 })).toEqual([["retry", "maxDelay"]]);
    expect(locs({ base: 1, factor: 2, cap: 0.5, attempts: 3, window: 60 })).toEqual([
      ["retry", "cap"],
    ]);
  });

  it("enforces a window above 0 and at most 30 days, except with no retries", () => {
    expect(locs({ delays: [1], window: 0 })).toEqual([["retry", "window"]]);
    // Kept in milliseconds: one that rounds to 0 is 0.
    expect(locs({ delays: [0], window: 0.0004 })).toEqual([["retry", "window"]]);
    expect(resolveLadder({ delays: [0], window: 0.001 }).windowMs).toBe(1);
    expect(locs({ delays: [1], window: 30 * 86_400 + 1 })).toEqual([["retry", "window"]]);
    expect(resolveLadder({ delays: [], window: 0 }).attempts).toBe(1);
    expect(resolveLadder({ base: 1, factor: 1, cap: 1, attempts: 1, window: 0 }).attempts).toBe(1);
    // Explicit delays with no window must fit in the largest window there is.
    expect(locs({ delays: [7 * 86_400, 7 * 86_400, 7 * 86_400, 7 * 86_400, 7 * 86_400] })).toEqual([
      ["retry", "delays"],
    ]);
  });

  it("enforces factor >= 1 and a proportional ratio in (0, 1]", () => {
    expect(locs({ base: 1, factor: 0.99, cap: 10, attempts: 3, window: 60 })).toEqual([
      ["retry", "factor"],
    ]);
    const jitter = (ratio: number): unknown => ({
      delays: [1],
      jitter: { strategy: "proportional", ratio },
    });
    expect(locs(jitter(0))).toEqual([["retry", "jitter", "ratio"]]);
    expect(locs(jitter(1.01))).toEqual([["retry", "jitter", "ratio"]]);
    expect(resolveLadder(jitter(1) as RetryPolicySpec).jitter).toEqual({
      strategy: "proportional",
      ratio: 1,
    });
    expect(locs({ delays: [1], jitter: { strategy: "wobbly" } })).toEqual([
      ["retry", "jitter", "strategy"],
    ]);
  });

  it("rejects an unknown preset and a spec of no (or more than one) form", () => {
    expect(problemsOf({ preset: "aggressive" })).toEqual([
      { loc: ["retry", "preset"], type: "unknown_preset" },
    ]);
    expect(locs({})).toEqual([["retry"]]);
    expect(locs({ preset: "svix", delays: [1] })).toEqual([["retry"]]);
    expect(locs(null)).toEqual([["retry"]]);
  });

  it("accepts fractional seconds and resolves them to milliseconds", () => {
    const l = resolveLadder({ delays: [0.05, 0.05, 0.1] });
    expect(l).toMatchObject({
      name: "custom",
      attempts: 4,
      nominalDelaysMs: [50, 50, 100],
      maxDelayMs: 100,
    });
    expect(l.jitter).toEqual({ strategy: "none" });
  });

  it("an exponential rule grows by factor and stops at cap", () => {
    const l = resolveLadder({ base: 1, factor: 2, cap: 10, attempts: 7, window: 600 });
    expect(l.nominalDelaysMs).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000]);
    expect(l.maxDelayMs).toBe(10_000);
  });

  it("the message names each field", () => {
    expect(() => resolveLadder({ delays: [3, 2] })).toThrow(
      /retry\.delays\.1: must not be shorter than the one before/,
    );
  });
  it("says a field the exponential rule needs is required when it is missing, not out of range", () => {
    const problems = (spec: unknown) =>
      (() => {
        try {
          resolveLadder(spec as RetryPolicySpec);
        } catch (err) {
          return (err as ValidationError).problems.map(({ loc, msg, type }) => ({
            loc,
            msg,
            type,
          }));
        }
        throw new Error("expected a ValidationError");
      })();
    const required = (field: string) => ({
      loc: ["retry", field],
      msg: "field required",
      type: "missing",
    });
    expect(problems({ base: 30 })).toEqual(["cap", "factor", "attempts", "window"].map(required));
    expect(problems({ base: 30, factor: 2, cap: 3600, attempts: 10 })).toEqual([
      required("window"),
    ]);
    // Given but wrong is still out of range, and a missing one is never compared with another.
    expect(problems({ base: 60, factor: 2, attempts: 0, window: 60 })).toEqual([
      required("cap"),
      {
        loc: ["retry", "attempts"],
        msg: "must be a whole number from 1 to 50",
        type: "out_of_range",
      },
    ]);
  });
});
