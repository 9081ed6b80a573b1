import { describe, expect, it } from "vitest";
import { textTable } from "../../bench/lib/report.js";
import { failInvalid, type Figure } from "../../bench/lib/scenario.js";

describe("the bench's figures of a run that went wrong", () => {
  it("fail even when they have no target of their own", () => {
    // The storm's no-jitter row: its retries are the baseline of the full-jitter ratio, and a
    // run that did not see them all says nothing about the ladder.
    const noJitter: Figure = {
      scenario: "9 storm",
      figure: "1,000 fail together; peak retries/1 s, no jitter",
      value: 640,
      unit: "requests",
      valid: false,
    };
    failInvalid([noJitter]);
    expect(noJitter.pass).toBe(false);
    expect(textTable([noJitter])).toMatch(/FAIL/);
  });

  it("leave the others as their scenario judged them", () => {
    const fine: Figure = { scenario: "5 lag", figure: "p50", value: 1.3, unit: "ms", valid: true };
    const judged: Figure = { ...fine, pass: true };
    failInvalid([fine, judged]);
    expect(fine.pass).toBeUndefined();
    expect(judged.pass).toBe(true);
  });
});
