import { describe, expect, it } from "vitest";
import { decideNext } from "../../src/engine/decide.js";
import { resolvePolicy } from "../../src/engine/policy.js";
import { decideRetryAfter } from "../../src/engine/retry-after.js";
import type { SendResult } from "../../src/engine/sender.js";

const policy = resolvePolicy(
  { retry: { preset: "default" }, concurrencyLimit: 10, timeoutMs: 15_000 },
  null,
  null,
);
const closed = {
  state: "closed" as const,
  since: 0,
  reason: null,
  nextProbeAt: null,
  reopenCount: 0,
};
const result = (status: number | null, retryAfter: string | null = null): SendResult => ({
  status,
  error: status === null ? "timeout" : null,
  errorDetail: status === null ? "no answer within 15000 ms" : null,
  snippet: "",
  retryAfter,
});
const decide = (r: SendResult) =>
  decideNext({
    result: r,
    retryAfter: decideRetryAfter(r.retryAfter, 0),
    policy,
    attemptsMade: 1,
    firstAttemptAt: 0,
    previousDelayMs: null,
    now: 0,
    circuit: closed,
    random: () => 0.5,
    singleAttempt: true,
  });

describe("a replay gets exactly one attempt", () => {
  it("a failure that would be retried ends the replay instead, and still counts for the breaker", () => {
    expect(decide(result(503))).toEqual({
      outcome: "retryable",
      next: { kind: "dead", failureClass: "exhausted", reason: "replay failed: HTTP 503" },
      retryAfter: null,
      disable: null,
      countsAsFailure: true,
    });
    expect(decide(result(null)).next).toMatchObject({
      kind: "dead",
      reason: "replay failed: timeout (no answer within 15000 ms)",
    });
  });

  it("a 429 with Retry-After schedules nothing either", () => {
    expect(decide(result(429, "10"))).toMatchObject({
      outcome: "rate_limited",
      next: { kind: "dead" },
      retryAfter: null,
      countsAsFailure: false,
    });
  });

  it("success and permanent answers are judged as for any delivery", () => {
    expect(decide(result(200)).next).toEqual({ kind: "succeeded" });
    expect(decide(result(410))).toMatchObject({
      next: { kind: "dead", failureClass: "permanent" },
      disable: "the receiver answered 410 Gone",
    });
  });
});
