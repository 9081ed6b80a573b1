import { describe, expect, it } from "vitest";
import type { CircuitSnapshot } from "../../src/engine/breaker.js";
import { decideNext, endedBeforeSending } from "../../src/engine/decide.js";
import { resolvePolicy } from "../../src/engine/policy.js";
import type { SendResult } from "../../src/engine/sender.js";

const SEC = 1000;
const MIN = 60 * SEC;
// Retries 10 s apart, nothing later than 60 s after the first attempt.
const policy = resolvePolicy(
  { retry: { preset: "default" }, concurrencyLimit: 10, timeoutMs: 15_000 },
  null,
  { retry: { delays: [10, 10, 10], window: 60 } },
);
const t0 = 1_700_000_000_000;
const openUntil = (nextProbeAt: number): CircuitSnapshot => ({
  state: "open",
  since: nextProbeAt - 5 * MIN,
  reason: "5 consecutive failures within 60 s; last: HTTP 503",
  nextProbeAt,
  reopenCount: 0,
});
const failed: SendResult = {
  status: 503,
  error: null,
  errorDetail: null,
  snippet: "",
  retryAfter: null,
};
const decideAt = (now: number, circuit: CircuitSnapshot) =>
  decideNext({
    result: failed,
    retryAfter: null,
    policy,
    attemptsMade: 1,
    firstAttemptAt: t0,
    previousDelayMs: null,
    now,
    circuit,
    random: () => 0.5,
  });

describe("the retry window and an open circuit", () => {
  it("a retry the probe would push past the window is exhausted instead", () => {
    const now = t0 + 20 * SEC;
    expect(decideAt(now, openUntil(now + 5 * MIN))).toEqual({
      outcome: "retryable",
      next: {
        kind: "dead",
        failureClass: "exhausted",
        reason: "the circuit's next probe falls outside the retry window; last: HTTP 503",
      },
      retryAfter: null,
      disable: null,
      countsAsFailure: true,
    });
  });

  it("a retry the probe leaves inside the window waits for the probe", () => {
    const now = t0 + 20 * SEC;
    expect(decideAt(now, openUntil(t0 + 60 * SEC)).next).toEqual({
      kind: "retry",
      at: t0 + 60 * SEC,
      delayMs: 10 * SEC,
    });
  });

  it("a delivery with attempts behind it, put off past its window, is not sent", () => {
    const due = (dueAt: number) => ({ attemptCount: 2, firstAttemptAt: t0, dueAt });
    expect(endedBeforeSending(due(t0 + 60 * SEC), policy)).toBeNull();
    expect(endedBeforeSending(due(t0 + 60 * SEC + 1), policy)).toEqual({
      kind: "dead",
      failureClass: "exhausted",
      reason: "the next attempt was held past the retry window",
    });
  });

  it("a delivery not yet attempted has no window yet", () => {
    const fresh = { attemptCount: 0, firstAttemptAt: null, dueAt: t0 + 30 * 86_400 * SEC };
    expect(endedBeforeSending(fresh, policy)).toBeNull();
  });
});
