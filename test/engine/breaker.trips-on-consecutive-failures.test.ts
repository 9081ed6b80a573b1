import { describe, it, expect } from "vitest";
import { CircuitBreaker, DEFAULT_BREAKER } from "../../src/engine/breaker.js";
import { settableClock } from "../support/fake-clock.js";

describe("the breaker trips on consecutive failures", () => {
  it("opens on the 5th consecutive failure within 60 s, explaining why", () => {
    const clock = settableClock();
    const breaker = new CircuitBreaker(DEFAULT_BREAKER, clock);
    for (let i = 0; i < 4; i++) {
      expect(breaker.onFailure(false, "HTTP 503")).toBeNull();
      clock.advance(10_000);
    }
    const t = breaker.onFailure(false, "HTTP 503");
    expect(t).toEqual({
      from: "closed",
      to: "open",
      at: clock.t,
      reason: "5 consecutive failures within 60 s; last: HTTP 503",
    });
    expect(breaker.snapshot()).toEqual({
      state: "open",
      since: clock.t,
      reason: t?.reason,
      nextProbeAt: clock.t + 5 * 60_000,
      reopenCount: 0,
      openedAt: clock.t,
    });
  });

  it("a success resets the count", () => {
    const clock = settableClock();
    const breaker = new CircuitBreaker(DEFAULT_BREAKER, clock);
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 4; i++) expect(breaker.onFailure(false, "timeout")).toBeNull();
      expect(breaker.onSuccess(false)).toBeNull();
    }
    expect(breaker.snapshot().state).toBe("closed");
  });

  it("does not trip when the run of failures is spread over more than the window", () => {
    const clock = settableClock();
    const breaker = new CircuitBreaker(DEFAULT_BREAKER, clock);
    for (let i = 0; i < 8; i++) {
      expect(breaker.onFailure(false, "HTTP 500")).toBeNull();
      clock.advance(20_000);
    }
    expect(breaker.snapshot().state).toBe("closed");
  });

  it("trips once the latest 5 of a long run fall within the window", () => {
    const clock = settableClock();
    const breaker = new CircuitBreaker(DEFAULT_BREAKER, clock);
    for (let i = 0; i < 3; i++) {
      breaker.onFailure(false, "HTTP 500");
      clock.advance(70_000);
    }
    for (let i = 0; i < 4; i++) {
      expect(breaker.onFailure(false, "HTTP 500")).toBeNull();
      clock.advance(1_000);
    }
    expect(breaker.onFailure(false, "dns")?.to).toBe("open");
  });

  it("holds deliveries while open, saying when the probe is due", () => {
    const clock = settableClock();
    const breaker = new CircuitBreaker(DEFAULT_BREAKER, clock);
    expect(breaker.admit(100)).toEqual({ allowed: true, probe: false });
    for (let i = 0; i < 5; i++) breaker.onFailure(false, "HTTP 503");
    expect(breaker.admit(0)).toEqual({ allowed: false, retryAt: clock.t + 5 * 60_000 });
  });

  it("ignores results of requests sent before it opened", () => {
    const clock = settableClock();
    const breaker = new CircuitBreaker(DEFAULT_BREAKER, clock);
    for (let i = 0; i < 5; i++) breaker.onFailure(false, "HTTP 503");
    const before = breaker.snapshot();
    expect(breaker.onFailure(false, "HTTP 503")).toBeNull();
    expect(breaker.onSuccess(false)).toBeNull();
    expect(breaker.snapshot()).toEqual(before);
  });
});
