/**
 * The breaker trips on 5 failures in a row within 60 s, or 20 within 5 minutes. When the wall
 * clock steps back, failures recorded before the step carry times after "now": their age is
 * unknown, and they must not make failures minutes apart look like a burst.
 */
import { describe, expect, it } from "vitest";
import { CircuitBreaker, DEFAULT_BREAKER } from "../../src/engine/breaker.js";
import { settableClock } from "../support/fake-clock.js";

const HOUR = 3_600_000;

describe("the breaker when the clock goes back an hour", () => {
  it("does not trip on 5 failures spread over 8 minutes", () => {
    const clock = settableClock();
    const breaker = new CircuitBreaker(DEFAULT_BREAKER, clock);
    for (let i = 0; i < 4; i++) {
      expect(breaker.onFailure(false, "HTTP 503")).toBeNull();
      clock.t += 2 * 60_000;
    }
    clock.t -= HOUR;
    expect(breaker.onFailure(false, "HTTP 503")).toBeNull();
    expect(breaker.snapshot().state).toBe("closed");
  });

  it("does not trip on 19 failures ten minutes before one more", () => {
    const clock = settableClock();
    const breaker = new CircuitBreaker(DEFAULT_BREAKER, clock);
    for (let i = 0; i < 19; i++) {
      breaker.onFailure(false, "HTTP 503");
      breaker.onSuccess(false);
      clock.t += 10_000;
    }
    // Ten minutes pass while the clock is set back an hour.
    clock.t += 10 * 60_000 - HOUR;
    expect(breaker.onFailure(false, "HTTP 503")).toBeNull();
  });

  it("still trips on a burst after the step", () => {
    const clock = settableClock();
    const breaker = new CircuitBreaker(DEFAULT_BREAKER, clock);
    breaker.onFailure(false, "HTTP 503");
    clock.t -= HOUR;
    for (let i = 0; i < 4; i++) {
      expect(breaker.onFailure(false, "HTTP 503")).toBeNull();
      clock.t += 1_000;
    }
    expect(breaker.onFailure(false, "HTTP 503")).toMatchObject({ to: "open" });
  });
});
