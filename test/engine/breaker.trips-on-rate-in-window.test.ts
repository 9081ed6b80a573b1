import { describe, it, expect } from "vitest";
import { CircuitBreaker, DEFAULT_BREAKER, type BreakerSettings } from "../../src/engine/breaker.js";
import { settableClock } from "../support/fake-clock.js";

// Alternate failure and success so the consecutive rule never fires.
function flaky(
  breaker: CircuitBreaker,
  clock: { advance(ms: number): void },
  failures: number,
  gapMs: number,
) {
  const transitions = [];
  for (let i = 0; i < failures; i++) {
    transitions.push(breaker.onFailure(false, `HTTP 502 #${i + 1}`));
    breaker.onSuccess(false);
    clock.advance(gapMs);
  }
  return transitions;
}

describe("the breaker trips on the failure rate in a window", () => {
  it("opens on the 20th failure within 5 min even with successes between them", () => {
    const clock = settableClock();
    const breaker = new CircuitBreaker(DEFAULT_BREAKER, clock);
    const transitions = flaky(breaker, clock, 20, 10_000);
    expect(transitions.slice(0, 19).every((t) => t === null)).toBe(true);
    expect(transitions[19]).toMatchObject({
      from: "closed",
      to: "open",
      reason: "20 failures within 5 min; last: HTTP 502 #20",
    });
  });

  it("forgets failures older than the window", () => {
    const clock = settableClock();
    const breaker = new CircuitBreaker(DEFAULT_BREAKER, clock);
    // 20 failures spread over 6+ minutes: never 20 inside any 5 minutes.
    const transitions = flaky(breaker, clock, 40, 20_000);
    expect(transitions.every((t) => t === null)).toBe(true);
    expect(breaker.snapshot().state).toBe("closed");
  });

  it("whichever rule is met first trips it", () => {
    const settings: BreakerSettings = {
      ...DEFAULT_BREAKER,
      consecutiveFailures: 3,
      windowFailures: 4,
    };
    const clock = settableClock();
    const breaker = new CircuitBreaker(settings, clock);
    flaky(breaker, clock, 3, 1_000);
    expect(breaker.onFailure(false, "timeout")?.reason).toBe(
      "4 failures within 5 min; last: timeout",
    );

    const other = new CircuitBreaker(settings, clock);
    other.onFailure(false, "a");
    other.onFailure(false, "b");
    expect(other.onFailure(false, "c")?.reason).toBe("3 consecutive failures within 60 s; last: c");
  });

  it("starts counting afresh after closing again", () => {
    const settings: BreakerSettings = {
      ...DEFAULT_BREAKER,
      windowFailures: 3,
      halfOpenSuccesses: 1,
    };
    const clock = settableClock();
    const breaker = new CircuitBreaker(settings, clock);
    flaky(breaker, clock, 3, 1_000);
    expect(breaker.snapshot().state).toBe("open");
    clock.advance(settings.probeDelayMs);
    expect(breaker.admit(0)).toEqual({ allowed: true, probe: true });
    breaker.onSuccess(true);
    breaker.onSuccess(false);
    expect(breaker.snapshot().state).toBe("closed");
    expect(flaky(breaker, clock, 2, 1_000).every((t) => t === null)).toBe(true);
  });
});
