/**
 * A failure that opens (or reopens) the circuit carrying Retry-After: the receiver said when to
 * come back, and the probe went at the breaker's own wait anyway (5 minutes after opening), asking
 * a receiver that had said "back in an hour" eleven times in that hour. The probe now waits until
 * the Retry-After when that is later, as after a 429 to a probe; the breaker's own wait still
 * grows only with reopenings.
 */
import { describe, expect, it } from "vitest";
import { CircuitBreaker, DEFAULT_BREAKER } from "../../src/engine/breaker.js";

const MIN = 60_000;

function clocked(t = 1_700_000_000_000) {
  const clock = { t, now: () => clock.t };
  return { clock, breaker: new CircuitBreaker(DEFAULT_BREAKER, clock) };
}

/** Fails until the last failure, which carries `notBefore`. */
function opened(notBefore: number | null) {
  const c = clocked();
  for (let i = 1; i < DEFAULT_BREAKER.consecutiveFailures; i++)
    c.breaker.onFailure(false, "HTTP 503");
  const t = c.breaker.onFailure(false, "HTTP 503", notBefore);
  return { ...c, t };
}

describe("a failure with Retry-After that opens the circuit", () => {
  it("puts the first probe at the Retry-After when that is later than the wait", () => {
    const { clock, breaker, t } = opened(1_700_000_000_000 + 60 * MIN);
    expect(t?.to).toBe("open");
    expect(t?.reason).toBe(
      "5 consecutive failures within 60 s; last: HTTP 503; the receiver's Retry-After put the probe off",
    );
    expect(breaker.snapshot().nextProbeAt).toBe(clock.t + 60 * MIN);
    clock.t += 5 * MIN;
    expect(breaker.admit(0)).toEqual({ allowed: false, retryAt: clock.t + 55 * MIN });
  });

  it("keeps the breaker's wait when the Retry-After is sooner, or absent", () => {
    for (const notBefore of [1_700_000_000_000 + MIN, null]) {
      const { clock, breaker, t } = opened(notBefore);
      expect(t?.reason).toBe("5 consecutive failures within 60 s; last: HTTP 503");
      expect(breaker.snapshot().nextProbeAt).toBe(clock.t + 5 * MIN);
    }
  });

  it("puts a failed probe's next one at its Retry-After, and the wait grows as before", () => {
    const { clock, breaker } = opened(null);
    clock.t += 5 * MIN;
    expect(breaker.admit(0)).toEqual({ allowed: true, probe: true });
    breaker.onFailure(true, "HTTP 503", clock.t + 90 * MIN);
    expect(breaker.snapshot()).toMatchObject({ nextProbeAt: clock.t + 90 * MIN, reopenCount: 1 });
    expect(breaker.snapshot().reason).toBe(
      "probe failed: HTTP 503; the receiver's Retry-After put the probe off",
    );
    clock.t += 90 * MIN;
    expect(breaker.admit(0)).toEqual({ allowed: true, probe: true });
    // The next reopening without one waits 20 minutes: the Retry-After did not grow the wait.
    breaker.onFailure(true, "HTTP 503");
    expect(breaker.snapshot()).toMatchObject({ nextProbeAt: clock.t + 20 * MIN, reopenCount: 2 });
  });

  it("changes nothing while the circuit stays closed", () => {
    const { clock, breaker } = clocked();
    expect(breaker.onFailure(false, "HTTP 503", clock.t + 60 * MIN)).toBeNull();
    expect(breaker.snapshot()).toMatchObject({ state: "closed", nextProbeAt: null });
  });
});
