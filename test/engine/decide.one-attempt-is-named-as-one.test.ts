/**
 * With the `manual` preset a delivery has one attempt. Its dead-letter reason read "all 1
 * attempts failed"; it now reads as a person would write it. More attempts read as before.
 */
import { describe, expect, it } from "vitest";
import { neverOpened } from "../../src/engine/breaker.js";
import { decideNext, endedBeforeSending } from "../../src/engine/decide.js";
import { resolvePolicy } from "../../src/engine/policy.js";

const policyOf = (preset: "manual" | "default") =>
  resolvePolicy({ retry: { preset }, concurrencyLimit: 10, timeoutMs: 15_000 }, null, null);
const closed = neverOpened(0);

const reasonAfterFailing = (preset: "manual" | "default", attemptsMade: number) =>
  decideNext({
    result: { status: 503, error: null, errorDetail: null, snippet: "", retryAfter: null },
    retryAfter: null,
    policy: policyOf(preset),
    attemptsMade,
    firstAttemptAt: 0,
    previousDelayMs: null,
    now: 0,
    circuit: closed,
    random: () => 0.5,
  }).next;

describe("a delivery whose attempts are spent", () => {
  it("says its one attempt failed, or all of its several", () => {
    expect(reasonAfterFailing("manual", 1)).toMatchObject({
      kind: "dead",
      reason: expect.stringMatching(/^the one attempt failed/),
    });
    const attempts = policyOf("default").ladder.attempts;
    expect(reasonAfterFailing("default", attempts)).toMatchObject({
      kind: "dead",
      reason: expect.stringMatching(new RegExp(`^all ${attempts} attempts failed`)),
    });
  });

  it("ended before sending, says the policy's one attempt was made", () => {
    const delivery = { attemptCount: 1, firstAttemptAt: 0, dueAt: 1_000 };
    expect(endedBeforeSending(delivery, policyOf("manual"))).toMatchObject({
      reason: "the one attempt the delivery policy allows was made",
    });
  });
});
