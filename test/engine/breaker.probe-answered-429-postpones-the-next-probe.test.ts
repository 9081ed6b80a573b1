import { describe, expect, it } from "vitest";
import { CircuitBreaker, DEFAULT_BREAKER } from "../../src/engine/breaker.js";
import { settableClock } from "../support/fake-clock.js";

const MIN = 60_000;

/** An open circuit whose first probe is due: admitted, it is the probe. */
function probing() {
  const clock = settableClock();
  const breaker = new CircuitBreaker(DEFAULT_BREAKER, clock);
  for (let i = 0; i < DEFAULT_BREAKER.consecutiveFailures; i++)
    breaker.onFailure(false, "HTTP 503");
  clock.advance(5 * MIN);
  expect(breaker.admit(0)).toEqual({ allowed: true, probe: true });
  return { clock, breaker };
}

describe("a probe answered 429", () => {
  it("keeps the circuit open and admits no probe until the current wait has passed again", () => {
    const { clock, breaker } = probing();
    const t = breaker.onProbeRateLimited(null);
    expect(t).toEqual({
      from: "open",
      to: "open",
      at: clock.t,
      reason: "probe answered HTTP 429",
    });
    expect(breaker.snapshot()).toMatchObject({
      state: "open",
      nextProbeAt: clock.t + 5 * MIN,
      reopenCount: 0,
    });
    expect(breaker.admit(0)).toEqual({ allowed: false, retryAt: clock.t + 5 * MIN });
    clock.advance(5 * MIN);
    expect(breaker.admit(0)).toEqual({ allowed: true, probe: true });
  });

  it("does not grow the wait, as a failed probe does", () => {
    const { clock, breaker } = probing();
    breaker.onFailure(true, "HTTP 503");
    clock.advance(10 * MIN);
    breaker.admit(0);
    for (let i = 0; i < 3; i++) {
      breaker.onProbeRateLimited(null);
      expect(breaker.snapshot()).toMatchObject({ nextProbeAt: clock.t + 10 * MIN, reopenCount: 1 });
      clock.advance(10 * MIN);
      expect(breaker.admit(0)).toEqual({ allowed: true, probe: true });
    }
    // A failed probe after them grows the wait from where it was.
    breaker.onFailure(true, "HTTP 503");
    expect(breaker.snapshot()).toMatchObject({ nextProbeAt: clock.t + 20 * MIN, reopenCount: 2 });
  });

  it("waits for the receiver's Retry-After when that is later, never less than the current wait", () => {
    const later = probing();
    later.breaker.onProbeRateLimited(later.clock.t + 30 * MIN);
    expect(later.breaker.snapshot().nextProbeAt).toBe(later.clock.t + 30 * MIN);
    expect(later.breaker.snapshot().reason).toBe(
      "probe answered HTTP 429; the receiver's Retry-After put the probe off",
    );

    const sooner = probing();
    sooner.breaker.onProbeRateLimited(sooner.clock.t + MIN);
    expect(sooner.breaker.snapshot().nextProbeAt).toBe(sooner.clock.t + 5 * MIN);
  });

  it("changes nothing when no probe is outstanding", () => {
    const { clock, breaker } = probing();
    breaker.onProbeRateLimited(null);
    const open = breaker.snapshot();
    // A late answer to a request sent before the circuit opened, or a second answer.
    expect(breaker.onProbeRateLimited(clock.t + 60 * MIN)).toBeNull();
    expect(breaker.snapshot()).toEqual(open);
  });
});
