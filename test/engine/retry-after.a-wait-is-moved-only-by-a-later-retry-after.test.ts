/**
 * One rule for "the later of hookline's wait and the receiver's Retry-After", used by each of the
 * circuit breaker's waits (the circuit opening, reopening, a probe answered 429): a Retry-After
 * lengthens a wait, never shortens it, and is said to have moved it only when it did.
 */
import { describe, expect, it } from "vitest";
import { CircuitBreaker, DEFAULT_BREAKER } from "../../src/engine/breaker.js";
import {
  RETRY_AFTER_CAP_MS,
  decideRetryAfter,
  laterOfWaitAndRetryAfter,
  retryAfterAt,
} from "../../src/engine/retry-after.js";

const NOW = Date.UTC(2026, 11, 6, 12, 0, 0);
const MIN = 60_000;

describe("when a receiver may be asked again after its Retry-After", () => {
  it("is now plus the wait a retry would take, honoured or capped", () => {
    expect(retryAfterAt(decideRetryAfter("120", NOW), NOW)).toBe(NOW + 120_000);
    expect(retryAfterAt(decideRetryAfter("36000", NOW), NOW)).toBe(NOW + RETRY_AFTER_CAP_MS);
    expect(retryAfterAt(decideRetryAfter("Sun, 06 Dec 2026 12:30:00 GMT", NOW), NOW)).toBe(
      NOW + 30 * MIN,
    );
  });

  it("is unknown without one, or with one that is ignored", () => {
    expect(retryAfterAt(null, NOW)).toBeNull();
    expect(retryAfterAt(decideRetryAfter("soon", NOW), NOW)).toBeNull();
    expect(retryAfterAt(decideRetryAfter(String(25 * 3600), NOW), NOW)).toBeNull();
  });
});

describe("the later of a wait and a Retry-After", () => {
  it("keeps the wait without a Retry-After, or with one that ends sooner or at the same time", () => {
    expect(laterOfWaitAndRetryAfter(NOW + 5 * MIN, null)).toEqual({
      at: NOW + 5 * MIN,
      asked: false,
    });
    expect(laterOfWaitAndRetryAfter(NOW + 5 * MIN, NOW + MIN)).toEqual({
      at: NOW + 5 * MIN,
      asked: false,
    });
    expect(laterOfWaitAndRetryAfter(NOW + 5 * MIN, NOW + 5 * MIN)).toEqual({
      at: NOW + 5 * MIN,
      asked: false,
    });
  });

  it("goes to the Retry-After when that ends later", () => {
    expect(laterOfWaitAndRetryAfter(NOW + 5 * MIN, NOW + 60 * MIN)).toEqual({
      at: NOW + 60 * MIN,
      asked: true,
    });
  });
});

describe("the circuit breaker's waits", () => {
  const clock = { t: NOW, now: () => clock.t };
  const opened = (notBefore: number | null) => {
    clock.t = NOW;
    const breaker = new CircuitBreaker(DEFAULT_BREAKER, clock);
    for (let i = 1; i < DEFAULT_BREAKER.consecutiveFailures; i++)
      breaker.onFailure(false, "HTTP 503");
    return { breaker, t: breaker.onFailure(false, "HTTP 503", notBefore) };
  };

  it("say the Retry-After only when it moved the probe, whichever way the circuit got there", () => {
    expect(opened(NOW + MIN).t?.reason).toBe("5 consecutive failures within 60 s; last: HTTP 503");
    expect(opened(NOW + 60 * MIN).t?.reason).toMatch(
      /; the receiver's Retry-After put the probe off$/,
    );

    const probed = opened(null).breaker;
    clock.t += 5 * MIN;
    probed.admit(0);
    expect(probed.onProbeRateLimited(clock.t + 30 * MIN)?.reason).toBe(
      "probe answered HTTP 429; the receiver's Retry-After put the probe off",
    );
    clock.t += 30 * MIN;
    probed.admit(0);
    expect(probed.onFailure(true, "HTTP 503", clock.t + MIN)?.reason).toBe(
      "probe failed: HTTP 503",
    );
  });
});
