import { describe, it, expect } from "vitest";
import { CircuitBreaker, DEFAULT_BREAKER, type BreakerSettings } from "../../src/engine/breaker.js";
import { settableClock } from "../support/fake-clock.js";

const MIN = 60_000;

function openBreaker(settings: BreakerSettings = DEFAULT_BREAKER) {
  const clock = settableClock();
  const breaker = new CircuitBreaker(settings, clock);
  for (let i = 0; i < settings.consecutiveFailures; i++) breaker.onFailure(false, "HTTP 503");
  return { clock, breaker };
}

describe("probe, half-open and close", () => {
  it("admits exactly one probe once the wait is over", () => {
    const { clock, breaker } = openBreaker();
    clock.advance(5 * MIN - 1);
    expect(breaker.admit(0)).toEqual({ allowed: false, retryAt: clock.t + 1 });
    clock.advance(1);
    expect(breaker.admit(0)).toEqual({ allowed: true, probe: true });
    expect(breaker.admit(0)).toEqual({ allowed: false, retryAt: null });
  });

  it("a successful probe half-opens; 5 more successes close it", () => {
    const { clock, breaker } = openBreaker();
    clock.advance(5 * MIN);
    breaker.admit(0);
    expect(breaker.onSuccess(true)).toEqual({
      from: "open",
      to: "half-open",
      at: clock.t,
      reason: "probe succeeded",
    });
    expect(breaker.snapshot()).toMatchObject({ state: "half-open", nextProbeAt: null });
    for (let i = 0; i < 4; i++) expect(breaker.onSuccess(false)).toBeNull();
    expect(breaker.onSuccess(false)).toEqual({
      from: "half-open",
      to: "closed",
      at: clock.t,
      reason: "5 successes while half-open",
    });
    expect(breaker.snapshot()).toMatchObject({
      state: "closed",
      reopenCount: 0,
      nextProbeAt: null,
    });
    expect(breaker.admit(50)).toEqual({ allowed: true, probe: false });
  });

  it("half-open lets through at most 2 requests at a time", () => {
    const { clock, breaker } = openBreaker();
    clock.advance(5 * MIN);
    breaker.admit(0);
    breaker.onSuccess(true);
    expect(breaker.admit(0)).toEqual({ allowed: true, probe: false });
    expect(breaker.admit(1)).toEqual({ allowed: true, probe: false });
    expect(breaker.admit(2)).toEqual({ allowed: false, retryAt: null });
  });

  it("a failed probe reopens with a longer wait, doubling up to 1 h", () => {
    const { clock, breaker } = openBreaker();
    const waits: number[] = [];
    let wait = 5 * MIN;
    for (let round = 0; round < 6; round++) {
      clock.advance(wait);
      expect(breaker.admit(0)).toEqual({ allowed: true, probe: true });
      const t = breaker.onFailure(true, "connection refused");
      expect(t).toMatchObject({ from: "open", to: "open" });
      const snap = breaker.snapshot();
      wait = (snap.nextProbeAt ?? 0) - clock.t;
      waits.push(wait);
      expect(snap.reopenCount).toBe(round + 1);
    }
    expect(waits.map((w) => w / MIN)).toEqual([10, 20, 40, 60, 60, 60]);
    expect(breaker.snapshot().reason).toBe("probe failed: connection refused");
  });

  it("any failure while half-open reopens with a longer wait", () => {
    const { clock, breaker } = openBreaker();
    clock.advance(5 * MIN);
    breaker.admit(0);
    breaker.onSuccess(true);
    breaker.onSuccess(false);
    const t = breaker.onFailure(false, "HTTP 500");
    expect(t).toEqual({
      from: "half-open",
      to: "open",
      at: clock.t,
      reason: "failure while half-open: HTTP 500",
    });
    expect(breaker.snapshot()).toMatchObject({ nextProbeAt: clock.t + 10 * MIN, reopenCount: 1 });
    // After a successful recovery the wait starts again from 5 min.
    clock.advance(10 * MIN);
    breaker.admit(0);
    breaker.onSuccess(true);
    for (let i = 0; i < 5; i++) breaker.onSuccess(false);
    for (let i = 0; i < 5; i++) breaker.onFailure(false, "HTTP 503");
    expect(breaker.snapshot()).toMatchObject({
      state: "open",
      nextProbeAt: clock.t + 5 * MIN,
      reopenCount: 0,
    });
  });

  it("a cancelled probe lets another be admitted", () => {
    const { clock, breaker } = openBreaker();
    clock.advance(5 * MIN);
    expect(breaker.admit(0)).toMatchObject({ allowed: true, probe: true });
    breaker.cancelProbe();
    expect(breaker.admit(0)).toMatchObject({ allowed: true, probe: true });
    // A probe result that arrives after cancelling is no longer the probe's.
    breaker.cancelProbe();
    expect(breaker.onSuccess(true)).toBeNull();
  });

  it("a snapshot round-trips through the constructor", () => {
    const { clock, breaker } = openBreaker();
    clock.advance(5 * MIN);
    breaker.admit(0);
    breaker.onFailure(true, "tls");
    const snap = breaker.snapshot();
    const restored = new CircuitBreaker(DEFAULT_BREAKER, clock, snap);
    expect(restored.snapshot()).toEqual(snap);
    // The restored breaker behaves the same: the next probe is due at the same time, and
    // another failed probe keeps growing the wait.
    expect(restored.admit(0)).toEqual({ allowed: false, retryAt: snap.nextProbeAt });
    clock.t = snap.nextProbeAt ?? 0;
    expect(restored.admit(0)).toEqual({ allowed: true, probe: true });
    restored.onFailure(true, "tls");
    expect(restored.snapshot()).toMatchObject({ reopenCount: 2, nextProbeAt: clock.t + 20 * MIN });

    const closed = new CircuitBreaker(DEFAULT_BREAKER, clock);
    expect(new CircuitBreaker(DEFAULT_BREAKER, clock, closed.snapshot()).snapshot()).toEqual(
      closed.snapshot(),
    );
    expect(JSON.parse(JSON.stringify(snap))).toEqual(snap);
  });
});
