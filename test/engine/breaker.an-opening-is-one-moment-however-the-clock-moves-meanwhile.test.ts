/**
 * The breaker read the clock once for the failure that opened the circuit (`openedAt`, the probe's
 * time) and again for the change itself (`since`, the transition's time). A real clock moves
 * between the two reads, so a circuit opened moments ago had `openedAt` a millisecond or so before
 * `since`, and the banner, which says "Failing since" only when the two differ, said both, in the
 * same second. Each change now happens at one moment: the one its failure was recorded at.
 */
import { describe, expect, it } from "vitest";
import { CircuitBreaker, DEFAULT_BREAKER } from "../../src/engine/breaker.js";

/** A clock that, like a real one, has moved on by a millisecond each time it is read. */
function tickingClock(t = 1_700_000_000_000): { t: number; now(): number } {
  return {
    t,
    now(): number {
      return this.t++;
    },
  };
}

const settings = { ...DEFAULT_BREAKER, consecutiveFailures: 1 };

describe("a change of circuit happens at one moment", () => {
  it("opening: when it opened is its last change, and its probe is one wait after", () => {
    const breaker = new CircuitBreaker(settings, tickingClock());
    const t = breaker.onFailure(false, "HTTP 500");
    expect(t).toMatchObject({ from: "closed", to: "open" });
    const c = breaker.snapshot();
    expect(c.since).toBe(t?.at);
    expect(c.openedAt).toBe(c.since);
    expect(c.nextProbeAt).toBe(c.since + settings.probeDelayMs);
  });

  it("reopening and a probe answered 429: the probe is one wait after the change", () => {
    const clock = tickingClock();
    const breaker = new CircuitBreaker(settings, clock);
    breaker.onFailure(false, "HTTP 500");

    const letProbeOut = (): void => {
      clock.t = breaker.snapshot().nextProbeAt ?? clock.t;
      expect(breaker.admit(0)).toEqual({ allowed: true, probe: true });
    };

    letProbeOut();
    const reopened = breaker.onFailure(true, "HTTP 500");
    let c = breaker.snapshot();
    expect(c.since).toBe(reopened?.at);
    expect(c.nextProbeAt).toBe(c.since + 2 * settings.probeDelayMs);

    letProbeOut();
    const paced = breaker.onProbeRateLimited(null);
    c = breaker.snapshot();
    expect(c.since).toBe(paced?.at);
    // Paced, not failed: the same wait again.
    expect(c.nextProbeAt).toBe(c.since + 2 * settings.probeDelayMs);
  });
});
