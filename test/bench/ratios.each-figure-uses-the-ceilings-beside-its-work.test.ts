import { describe, expect, it } from "vitest";
import { applyCeiling, vsCeiling, type Figure } from "../../bench/lib/scenario.js";

const drain = (value: number, ceilingAt?: number): Figure =>
  vsCeiling(
    { scenario: "2 drain", figure: "a drain", value, unit: "deliveries/s", ceilingAt },
    0.5,
  );

describe("the bench's ratios to the ceiling", () => {
  // Ceilings in the order measured: before the scenario, between its two parts, after it.
  const ceilings = [4_000, 8_000, 12_000];

  it("compare each part of a scenario with the ceilings measured just before and after it", () => {
    const first = drain(3_000, 0);
    const second = drain(3_000, 1);
    applyCeiling([first, second], ceilings, 0);
    expect(first.ratio).toBe(3_000 / 6_000);
    expect(first.pass).toBe(true);
    expect(second.ratio).toBe(3_000 / 10_000);
    expect(second.pass).toBe(false);
  });

  it("use the ceilings around the scenario for a figure that does not say", () => {
    const plain = drain(3_000);
    applyCeiling([plain], [4_000, 8_000], 0);
    expect(plain.ratio).toBe(3_000 / 6_000);
  });

  it("use the one ceiling there is when none was measured after", () => {
    const last = drain(3_000, 2);
    applyCeiling([last], ceilings, 0);
    expect(last.ratio).toBe(3_000 / 12_000);
  });

  it("fail a figure whose run went wrong, whatever its ratio", () => {
    const broken = { ...drain(9_000, 0), valid: false };
    applyCeiling([broken], ceilings, 0);
    expect(broken.pass).toBe(false);
  });
});
