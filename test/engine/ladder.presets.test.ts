import { describe, it, expect } from "vitest";
import { PRESETS, resolveLadder, type PresetName } from "../../src/engine/ladder.js";

const H = 3_600_000;
const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

describe("retry presets", () => {
  it("default: at once, then exponential from 30 s by 4 capped at 5 h, 8 attempts, ±20 %, 24 h", () => {
    const l = resolveLadder({ preset: "default" });
    expect(l.name).toBe("default");
    expect(l.attempts).toBe(8);
    expect(l.nominalDelaysMs).toEqual(
      [30, 120, 480, 1920, 7680, 18_000, 18_000].map((s) => s * 1000),
    );
    expect(sum(l.nominalDelaysMs) / H).toBeCloseTo(12.8, 1);
    expect(l.maxDelayMs).toBe(5 * H);
    expect(l.windowMs).toBe(24 * H);
    expect(l.jitter).toEqual({ strategy: "proportional", ratio: 0.2 });
  });

  it("svix: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h with ±10 % in 31 h", () => {
    const l = resolveLadder({ preset: "svix" });
    expect(l.attempts).toBe(8);
    expect(l.nominalDelaysMs).toEqual(
      [5, 300, 1800, 7200, 18_000, 36_000, 36_000].map((s) => s * 1000),
    );
    expect(l.windowMs).toBe(31 * H);
    expect(l.jitter).toEqual({ strategy: "proportional", ratio: 0.1 });
    expect(l.maxDelayMs).toBe(11 * H);
  });

  it("standard-webhooks: the spec's example schedule, 10 attempts in 84 h", () => {
    const l = resolveLadder({ preset: "standard-webhooks" });
    expect(l.attempts).toBe(10);
    expect(l.nominalDelaysMs.map((ms) => ms / 1000)).toEqual([
      5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400,
    ]);
    expect(l.windowMs).toBe(84 * H);
    expect(sum(l.nominalDelaysMs)).toBeLessThanOrEqual(l.windowMs);
  });

  it("three-day: exponential from 60 s by 3 capped at 12 h, as many attempts as fit 72 h", () => {
    const l = resolveLadder({ preset: "three-day" });
    expect(l.nominalDelaysMs[0]).toBe(60_000);
    expect(l.nominalDelaysMs[1]).toBe(180_000);
    expect(Math.max(...l.nominalDelaysMs)).toBe(12 * H);
    expect(l.windowMs).toBe(72 * H);
    expect(sum(l.nominalDelaysMs)).toBeLessThanOrEqual(l.windowMs);
    // One more capped retry would not fit.
    expect(sum(l.nominalDelaysMs) + 12 * H).toBeGreaterThan(l.windowMs);
    expect(l.attempts).toBe(12);
  });

  it("manual: a single attempt and no retries", () => {
    const l = resolveLadder({ preset: "manual" });
    expect(l).toMatchObject({ name: "manual", attempts: 1, nominalDelaysMs: [], windowMs: 0 });
    expect(l.jitter).toEqual({ strategy: "none" });
  });

  it("every preset resolves without error and never decreases", () => {
    for (const name of Object.keys(PRESETS) as PresetName[]) {
      const l = resolveLadder({ preset: name });
      expect(l.name).toBe(name);
      expect(l.nominalDelaysMs).toHaveLength(l.attempts - 1);
      l.nominalDelaysMs.forEach((d, i) =>
        expect(d).toBeGreaterThanOrEqual(l.nominalDelaysMs[i - 1] ?? 0),
      );
    }
  });

  it("resolving does not share objects with PRESETS", () => {
    const l = resolveLadder({ preset: "svix" });
    l.nominalDelaysMs.push(1);
    (l.jitter as { ratio: number }).ratio = 0.9;
    expect(resolveLadder({ preset: "svix" }).attempts).toBe(8);
    expect(resolveLadder({ preset: "svix" }).jitter).toEqual({
      strategy: "proportional",
      ratio: 0.1,
    });
  });
});
