import { describe, it, expect } from "vitest";
import {
  RETRY_AFTER_CAP_MS,
  RETRY_AFTER_HONOUR_MAX_MS,
  RETRY_AFTER_IGNORE_ABOVE_MS,
  decideRetryAfter,
} from "../../src/engine/retry-after.js";
import { nextAttempt, resolveLadder } from "../../src/engine/ladder.js";

const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
const H = 3_600_000;

describe("Retry-After rules", () => {
  it("is absent when the header is missing or blank", () => {
    expect(decideRetryAfter(undefined, NOW)).toBeNull();
    expect(decideRetryAfter(null, NOW)).toBeNull();
    expect(decideRetryAfter("", NOW)).toBeNull();
    expect(decideRetryAfter("   ", NOW)).toBeNull();
  });

  it("honours delta-seconds up to and including 4 h exactly", () => {
    expect(decideRetryAfter("0", NOW)).toEqual({ kind: "honoured", delayMs: 0 });
    expect(decideRetryAfter("120", NOW)).toEqual({ kind: "honoured", delayMs: 120_000 });
    expect(decideRetryAfter(" 30 ", NOW)).toEqual({ kind: "honoured", delayMs: 30_000 });
    expect(decideRetryAfter("14400", NOW)).toEqual({ kind: "honoured", delayMs: 4 * H });
  });

  it("caps anything above 4 h up to and including 24 h at 4 h", () => {
    expect(decideRetryAfter("14401", NOW)).toEqual({
      kind: "capped",
      delayMs: 4 * H,
      requestedMs: 14_401_000,
    });
    expect(decideRetryAfter("86400", NOW)).toEqual({
      kind: "capped",
      delayMs: 4 * H,
      requestedMs: 24 * H,
    });
  });

  it("ignores anything above 24 h as too long", () => {
    expect(decideRetryAfter("86401", NOW)).toEqual({
      kind: "ignored",
      reason: "too-long",
      requestedMs: 86_401_000,
    });
    expect(decideRetryAfter("99999999999999999999999", NOW)).toEqual({
      kind: "ignored",
      reason: "too-long",
      requestedMs: 99999999999999999999999 * 1000,
    });
  });

  it("keeps a wait too long for a number as the longest one there is", () => {
    // 400 digits read as Infinity, which no JSON answer can say.
    expect(decideRetryAfter("9".repeat(400), NOW)).toEqual({
      kind: "ignored",
      reason: "too-long",
      requestedMs: Number.MAX_VALUE,
    });
  });

  it("exports the boundaries it uses", () => {
    expect(RETRY_AFTER_HONOUR_MAX_MS).toBe(4 * H);
    expect(RETRY_AFTER_CAP_MS).toBe(4 * H);
    expect(RETRY_AFTER_IGNORE_ABOVE_MS).toBe(24 * H);
  });

  it("turns an IMF-fixdate into a delay from now", () => {
    expect(decideRetryAfter("Wed, 15 Jan 2025 12:10:00 GMT", NOW)).toEqual({
      kind: "honoured",
      delayMs: 600_000,
    });
    expect(decideRetryAfter("Wed, 15 Jan 2025 20:00:00 GMT", NOW)).toEqual({
      kind: "capped",
      delayMs: 4 * H,
      requestedMs: 8 * H,
    });
    expect(decideRetryAfter("Fri, 17 Jan 2025 12:00:00 GMT", NOW)).toEqual({
      kind: "ignored",
      reason: "too-long",
      requestedMs: 48 * H,
    });
  });

  it("treats a date in the past as 'now'", () => {
    expect(decideRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", NOW)).toEqual({
      kind: "honoured",
      delayMs: 0,
    });
  });

  it("accepts the obsolete RFC 850 and asctime forms", () => {
    expect(decideRetryAfter("Wednesday, 15-Jan-25 12:05:00 GMT", NOW)).toEqual({
      kind: "honoured",
      delayMs: 300_000,
    });
    expect(decideRetryAfter("Wed Jan 15 12:01:00 2025", NOW)).toEqual({
      kind: "honoured",
      delayMs: 60_000,
    });
    expect(decideRetryAfter("Sun Nov  6 08:49:37 1994", NOW)).toEqual({
      kind: "honoured",
      delayMs: 0,
    });
  });

  it("calls negative, fractional and garbage values malformed", () => {
    for (const bad of [
      "-1",
      "1.5",
      "+5",
      "1e3",
      "soon",
      "0x10",
      "15 Jan 2025",
      "Wed, 31 Feb 2025 12:00:00 GMT",
      "Wed, 15 Jan 2025 25:00:00 GMT",
      "Wed, 15 Jan 2025 12:00:00 PST",
    ]) {
      expect(decideRetryAfter(bad, NOW), bad).toEqual({
        kind: "ignored",
        reason: "malformed",
        value: bad,
      });
    }
  });

  it("keeps a malformed value cut short, with control characters replaced", () => {
    const long = `soon${"!".repeat(100)}`;
    expect(decideRetryAfter(`  ${long}  `, NOW)).toEqual({
      kind: "ignored",
      reason: "malformed",
      value: `${long.slice(0, 64)}…`,
    });
    expect(decideRetryAfter("so\u0000on\tlater\u007f\u0085", NOW)).toEqual({
      kind: "ignored",
      reason: "malformed",
      value: "so\ufffdon\ufffdlater\ufffd\ufffd",
    });
  });

  it("replaces the direction controls a malformed value holds, which would reorder hookline's sentence", () => {
    // A right-to-left override left in the value shown in "The endpoint's Retry-After was "…",
    // neither …" reversed the rest of hookline's sentence on the operator's page; so do the
    // embeddings, isolates and marks.
    const controls = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c";
    expect(decideRetryAfter(`later${controls}!`, NOW)).toEqual({
      kind: "ignored",
      reason: "malformed",
      value: `later${"\ufffd".repeat(12)}!`,
    });
    // Right-to-left letters are not controls: they stay.
    expect(decideRetryAfter("אחר כך", NOW)).toEqual({
      kind: "ignored",
      reason: "malformed",
      value: "אחר כך",
    });
  });

  it("a honoured Retry-After replaces the ladder delay, without jitter", () => {
    const ladder = resolveLadder({ preset: "default" });
    const retryAfter = decideRetryAfter("90", NOW);
    const step = nextAttempt({
      ladder,
      attemptsMade: 1,
      firstAttemptAt: NOW,
      now: NOW,
      retryAfter,
      random: () => 0,
    });
    expect(step).toEqual({
      kind: "retry",
      at: NOW + 90_000,
      delayMs: 90_000,
      source: "retry-after",
    });
  });

  it("a capped one uses the cap, and still counts as an attempt", () => {
    const ladder = resolveLadder({ delays: [1, 1], window: 86_400 });
    const retryAfter = decideRetryAfter("50000", NOW);
    const step = nextAttempt({
      ladder,
      attemptsMade: 1,
      firstAttemptAt: NOW,
      now: NOW,
      retryAfter,
      random: () => 0,
    });
    expect(step).toEqual({ kind: "retry", at: NOW + 4 * H, delayMs: 4 * H, source: "retry-after" });
    const spent = nextAttempt({
      ladder,
      attemptsMade: 3,
      firstAttemptAt: NOW,
      now: NOW + 4 * H,
      retryAfter,
      random: () => 0,
    });
    expect(spent).toEqual({ kind: "exhausted", reason: "attempts" });
  });

  it("an ignored one leaves the ladder in force", () => {
    const ladder = resolveLadder({ delays: [30], window: 3600 });
    for (const header of ["86401", "garbage"]) {
      const retryAfter = decideRetryAfter(header, NOW);
      const step = nextAttempt({
        ladder,
        attemptsMade: 1,
        firstAttemptAt: NOW,
        now: NOW,
        retryAfter,
        random: () => 0,
      });
      expect(step).toEqual({ kind: "retry", at: NOW + 30_000, delayMs: 30_000, source: "ladder" });
    }
  });

  it("the window still bounds a Retry-After", () => {
    const ladder = resolveLadder({ delays: [1, 1], window: 3600 });
    const retryAfter = decideRetryAfter("3601", NOW);
    const step = nextAttempt({
      ladder,
      attemptsMade: 1,
      firstAttemptAt: NOW,
      now: NOW,
      retryAfter,
      random: () => 0,
    });
    expect(step).toEqual({ kind: "exhausted", reason: "window" });
    const atEdge = nextAttempt({
      ladder,
      attemptsMade: 1,
      firstAttemptAt: NOW,
      now: NOW,
      retryAfter: decideRetryAfter("3600", NOW),
      random: () => 0,
    });
    expect(atEdge).toMatchObject({ kind: "retry", at: NOW + 3_600_000 });
  });
});
