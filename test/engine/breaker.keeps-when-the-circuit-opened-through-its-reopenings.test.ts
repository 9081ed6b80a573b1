/**
 * A circuit's `since` is its last change: each failed probe reopens the circuit and moves it on, so
 * after a few failed probes nothing said since when the endpoint had been failing, which is what a
 * customer matches against their own server's logs. The breaker now keeps `openedAt`, when the
 * circuit opened from closed, through its reopenings and half-open trials, until it closes.
 */
import { describe, expect, it } from "vitest";
import { CircuitBreaker, DEFAULT_BREAKER, neverOpened } from "../../src/engine/breaker.js";
import { settableClock } from "../support/fake-clock.js";

const MIN = 60_000;

function openedBreaker() {
  const clock = settableClock();
  const breaker = new CircuitBreaker(DEFAULT_BREAKER, clock);
  for (let i = 0; i < DEFAULT_BREAKER.consecutiveFailures; i++) {
    breaker.onFailure(false, "HTTP 503");
  }
  return { clock, breaker, openedAt: clock.t };
}

/** Lets the due probe out and answers it with `answer`. */
function probe(
  clock: { t: number },
  breaker: CircuitBreaker,
  answer: (b: CircuitBreaker) => unknown,
): void {
  clock.t = breaker.snapshot().nextProbeAt ?? clock.t;
  expect(breaker.admit(0)).toEqual({ allowed: true, probe: true });
  answer(breaker);
}

describe("when the circuit opened, through its reopenings", () => {
  it("is none while the circuit never opened", () => {
    const clock = settableClock();
    expect(new CircuitBreaker(DEFAULT_BREAKER, clock).snapshot().openedAt).toBeNull();
    expect(neverOpened(clock.t).openedAt).toBeNull();
    // Failures short of opening the circuit open nothing.
    const breaker = new CircuitBreaker(DEFAULT_BREAKER, clock);
    breaker.onFailure(false, "HTTP 500");
    expect(breaker.snapshot().openedAt).toBeNull();
  });

  it("is the opening, while failed probes reopen the circuit and move `since` on", () => {
    const { clock, breaker, openedAt } = openedBreaker();
    expect(breaker.snapshot()).toMatchObject({ state: "open", since: openedAt, openedAt });

    probe(clock, breaker, (b) => b.onFailure(true, "HTTP 500"));
    probe(clock, breaker, (b) => b.onFailure(true, "HTTP 500"));
    expect(clock.t).toBe(openedAt + 15 * MIN);
    expect(breaker.snapshot()).toMatchObject({
      state: "open",
      since: clock.t,
      openedAt,
      reopenCount: 2,
    });

    // A probe answered 429 keeps the circuit open and moves `since` on too.
    probe(clock, breaker, (b) => b.onProbeRateLimited(null));
    expect(breaker.snapshot()).toMatchObject({ since: clock.t, openedAt });
  });

  it("stays through half-open and a failure there, and is none once the circuit closes", () => {
    const { clock, breaker, openedAt } = openedBreaker();
    probe(clock, breaker, (b) => b.onSuccess(true));
    expect(breaker.snapshot()).toMatchObject({ state: "half-open", openedAt });
    clock.t += MIN;
    breaker.onFailure(false, "HTTP 502");
    expect(breaker.snapshot()).toMatchObject({ state: "open", since: clock.t, openedAt });

    probe(clock, breaker, (b) => b.onSuccess(true));
    for (let i = 0; i < DEFAULT_BREAKER.halfOpenSuccesses; i++) breaker.onSuccess(false);
    expect(breaker.snapshot()).toMatchObject({ state: "closed", openedAt: null });

    // The next run of failures opens it afresh.
    clock.t += 10 * MIN;
    for (let i = 0; i < DEFAULT_BREAKER.consecutiveFailures; i++) {
      breaker.onFailure(false, "timeout");
    }
    expect(breaker.snapshot()).toMatchObject({ state: "open", openedAt: clock.t });
  });

  it("is kept by a snapshot and the breaker restored from it", () => {
    const { clock, breaker, openedAt } = openedBreaker();
    probe(clock, breaker, (b) => b.onFailure(true, "HTTP 500"));
    const restored = new CircuitBreaker(DEFAULT_BREAKER, clock, breaker.snapshot());
    expect(restored.snapshot()).toEqual(breaker.snapshot());
    probe(clock, restored, (b) => b.onFailure(true, "HTTP 500"));
    expect(restored.snapshot()).toMatchObject({ reopenCount: 2, since: clock.t, openedAt });

    // A circuit stored before hookline kept it: when it opened is not known, and stays so.
    const older = { ...breaker.snapshot() };
    delete older.openedAt;
    const unknown = new CircuitBreaker(DEFAULT_BREAKER, clock, older);
    expect(unknown.snapshot().openedAt).toBeNull();
    probe(clock, unknown, (b) => b.onFailure(true, "HTTP 500"));
    expect(unknown.snapshot().openedAt).toBeNull();
  });
});
