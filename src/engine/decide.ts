/**
 * The decision after one attempt: where the delivery goes next. Pure: the engine passes in the
 * result, the policy, the circuit and the clock's reading, and records what comes out.
 */
import type { Random } from "../clock.js";
import type { FailureClass, RetryAfterUse } from "../domain/types.js";
import type { CircuitSnapshot } from "./breaker.js";
import { nextAttempt, type RetryAfterDecision } from "./ladder.js";
import { classifyOutcome, disablesEndpoint, type OutcomeClass } from "./outcome.js";
import type { ResolvedPolicy } from "./policy.js";
import type { SendResult } from "./sender.js";

export type NextMove =
  | { kind: "succeeded" }
  | { kind: "retry"; at: number; delayMs: number }
  | { kind: "dead"; failureClass: FailureClass; reason: string };

export interface Decision {
  outcome: OutcomeClass;
  next: NextMove;
  /** How a Retry-After set the retry's delay; null without one, or when no retry follows. */
  retryAfter: RetryAfterUse | null;
  /** A reason to disable the endpoint (410 Gone), or null. */
  disable: string | null;
  /** Whether this result counts against the endpoint's circuit breaker. */
  countsAsFailure: boolean;
}

/** Decides what follows attempt number `attemptsMade` of a delivery. */
export function decideNext(input: {
  result: SendResult;
  /**
   * The result's Retry-After as `decideRetryAfter` read it at `now`; null without one. Read once
   * by the caller, which also gives it to the circuit breaker and a replay's answer.
   */
  retryAfter: RetryAfterDecision | null;
  policy: ResolvedPolicy;
  attemptsMade: number;
  firstAttemptAt: number;
  previousDelayMs: number | null;
  now: number;
  circuit: CircuitSnapshot;
  random: Random;
  /** A dead-letter replay: one attempt, never retried; a failure goes back to its record. */
  singleAttempt?: boolean;
}): Decision {
  const { result, policy } = input;
  const outcome = classifyOutcome(
    { status: result.status ?? undefined, error: result.error ?? undefined },
    policy.permanentStatuses,
  );
  const disable = disablesEndpoint(result.status ?? undefined)
    ? "the receiver answered 410 Gone"
    : null;
  if (outcome === "success") {
    return {
      outcome,
      next: { kind: "succeeded" },
      retryAfter: null,
      disable,
      countsAsFailure: false,
    };
  }
  // 429 is the receiver pacing us, not failing: Retry-After handles it, the breaker does not.
  const countsAsFailure = outcome !== "rate_limited";
  if (outcome === "permanent") {
    return {
      outcome,
      next: { kind: "dead", failureClass: "permanent", reason: `${describe(result)} is permanent` },
      retryAfter: null,
      disable,
      countsAsFailure,
    };
  }
  if (input.singleAttempt) {
    return {
      outcome,
      next: {
        kind: "dead",
        failureClass: "exhausted",
        reason: `replay failed: ${describe(result)}`,
      },
      retryAfter: null,
      disable,
      countsAsFailure,
    };
  }
  const ra = input.retryAfter;
  const step = nextAttempt({
    ladder: policy.ladder,
    attemptsMade: input.attemptsMade,
    firstAttemptAt: input.firstAttemptAt,
    now: input.now,
    previousDelayMs: input.previousDelayMs ?? undefined,
    retryAfter: ra,
    random: input.random,
  });
  if (step.kind === "exhausted") {
    const why =
      step.reason === "attempts"
        ? allAttempts(policy.ladder.attempts, "failed")
        : "the next attempt would fall outside the retry window";
    return {
      outcome,
      next: {
        kind: "dead",
        failureClass: "exhausted",
        reason: `${why}; last: ${describe(result)}`,
      },
      // No retry follows: the Retry-After delayed nothing, so it is counted nowhere (as a replay's).
      retryAfter: null,
      disable,
      countsAsFailure,
    };
  }
  // While the circuit is open, a retry waits for the probe instead of firing; never past the
  // window, which bounds every attempt.
  const probeAt = input.circuit.state === "open" ? (input.circuit.nextProbeAt ?? 0) : 0;
  const at = Math.max(step.at, probeAt);
  if (at > input.firstAttemptAt + policy.ladder.windowMs) {
    return {
      outcome,
      next: {
        kind: "dead",
        failureClass: "exhausted",
        reason: `the circuit's next probe falls outside the retry window; last: ${describe(result)}`,
      },
      retryAfter: null,
      disable,
      countsAsFailure,
    };
  }
  return {
    outcome,
    next: { kind: "retry", at, delayMs: step.delayMs },
    retryAfter: ra?.kind ?? null,
    disable,
    countsAsFailure,
  };
}

/**
 * Before a delivery that was already attempted is sent again: whether the policy still has room
 * for that attempt. It has none when the attempts are spent (the policy was cut to fewer since the
 * retry was scheduled) or when the retry was put off past its window (an open circuit moves
 * waiting retries to its probe time; a policy may shorten the window). Then it is exhausted
 * without another attempt; null when it may be sent. The window is judged by when the retry was
 * due, not by the clock: a retry due inside the window is still sent if hookline reaches it a
 * little late.
 */
export function endedBeforeSending(
  delivery: { attemptCount: number; firstAttemptAt: number | null; dueAt: number },
  policy: ResolvedPolicy,
): Extract<NextMove, { kind: "dead" }> | null {
  if (delivery.attemptCount === 0 || delivery.firstAttemptAt === null) return null;
  const { attempts, windowMs } = policy.ladder;
  if (delivery.attemptCount >= attempts) {
    return {
      kind: "dead",
      failureClass: "exhausted",
      reason: allAttempts(attempts, "the delivery policy allows were made"),
    };
  }
  if (delivery.dueAt <= delivery.firstAttemptAt + windowMs) return null;
  return {
    kind: "dead",
    failureClass: "exhausted",
    reason: "the next attempt was held past the retry window",
  };
}

/** "HTTP 503", "HTTP 301 (Location: https://…)" or "timeout (no answer within 15000 ms)". */
export function describe(result: SendResult): string {
  const what = result.status !== null ? `HTTP ${result.status}` : String(result.error);
  return result.errorDetail ? `${what} (${result.errorDetail})` : what;
}

/** "all 3 attempts failed", and "the one attempt failed" for the `manual` preset's one. */
function allAttempts(n: number, what: "failed" | "the delivery policy allows were made"): string {
  if (n !== 1) return `all ${n} attempts ${what}`;
  return what === "failed"
    ? "the one attempt failed"
    : "the one attempt the delivery policy allows was made";
}
