import { describe, it, expect } from "vitest";
import fc from "fast-check";
import {
  jitterBounds,
  nextAttempt,
  resolveLadder,
  type JitterSpec,
  type RetryLadder,
  type RetryPolicySpec,
} from "../../src/engine/ladder.js";

const jitterArb: fc.Arbitrary<JitterSpec> = fc.oneof(
  fc.constant({ strategy: "none" as const }),
  fc
    .double({ min: 0.01, max: 1, noNaN: true })
    .map((ratio) => ({ strategy: "proportional" as const, ratio })),
  fc.constant({ strategy: "full" as const }),
  fc.constant({ strategy: "equal" as const }),
  fc.constant({ strategy: "decorrelated" as const }),
);

// Explicit lists are generated as sorted lists, exponential rules from their parameters.
const explicitArb: fc.Arbitrary<RetryPolicySpec> = fc
  .record({
    delays: fc.array(fc.integer({ min: 0, max: 7 * 86_400_000 }), { maxLength: 12 }),
    jitter: jitterArb,
    window: fc.option(fc.integer({ min: 1, max: 30 * 86_400 }), { nil: undefined }),
  })
  .map(({ delays, jitter, window }) => ({
    // Keep the total under 30 days so that omitting the window stays valid.
    delays: [...delays].sort((a, b) => a - b).map((ms) => ms / 1000 / 12),
    jitter,
    ...(window === undefined ? {} : { window }),
  }));

const exponentialArb: fc.Arbitrary<RetryPolicySpec> = fc
  .record({
    base: fc.integer({ min: 0, max: 3600 }),
    factor: fc.double({ min: 1, max: 10, noNaN: true }),
    extra: fc.integer({ min: 0, max: 86_400 }),
    attempts: fc.integer({ min: 1, max: 50 }),
    window: fc.integer({ min: 1, max: 30 * 86_400 }),
    jitter: jitterArb,
  })
  .map(({ base, extra, ...rest }) => ({ base, cap: base + extra, ...rest }));

const presetArb: fc.Arbitrary<RetryPolicySpec> = fc
  .constantFrom("default", "svix", "standard-webhooks", "three-day", "manual" as const)
  .map((preset) => ({ preset }));

const ladderArb: fc.Arbitrary<RetryLadder> = fc
  .oneof(explicitArb, exponentialArb, presetArb)
  .map((spec) => resolveLadder(spec));

// Plays a whole delivery that always fails, each attempt taking `took[i]` ms.
function play(ladder: RetryLadder, rolls: number[], took: number[], first: number) {
  const steps: ReturnType<typeof nextAttempt>[] = [];
  const delays: number[] = [];
  let now = first;
  let previousDelayMs: number | undefined;
  for (let made = 1; made <= ladder.attempts + 1; made++) {
    now += took[made % took.length] ?? 0;
    const roll = rolls[made % rolls.length] ?? 0.5;
    const step = nextAttempt({
      ladder,
      attemptsMade: made,
      firstAttemptAt: first,
      now,
      previousDelayMs,
      random: () => roll,
    });
    steps.push(step);
    if (step.kind === "exhausted") break;
    const bounds = jitterBounds(ladder, made - 1, previousDelayMs);
    expect(step.delayMs).toBeGreaterThanOrEqual(bounds.minMs);
    expect(step.delayMs).toBeLessThanOrEqual(bounds.maxMs);
    delays.push(step.delayMs);
    previousDelayMs = step.delayMs;
    now = step.at;
  }
  return { steps, delays };
}

const rollsArb = fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), {
  minLength: 1,
  maxLength: 20,
});
const tookArb = fc.array(fc.integer({ min: 0, max: 60_000 }), { minLength: 1, maxLength: 5 });
const firstArb = fc.integer({ min: 0, max: 2_000_000_000_000 });

describe("retry ladder properties", () => {
  it("nominal delays never decrease and there is one per retry", () => {
    fc.assert(
      fc.property(ladderArb, (ladder) => {
        expect(ladder.nominalDelaysMs).toHaveLength(ladder.attempts - 1);
        for (let i = 1; i < ladder.nominalDelaysMs.length; i++) {
          expect(ladder.nominalDelaysMs[i]).toBeGreaterThanOrEqual(
            ladder.nominalDelaysMs[i - 1] ?? 0,
          );
        }
        expect(Math.max(0, ...ladder.nominalDelaysMs)).toBeLessThanOrEqual(ladder.maxDelayMs);
      }),
    );
  });

  it("jitter bounds contain the nominal delay (except decorrelated) and lie within [0, maxDelay]", () => {
    fc.assert(
      fc.property(ladderArb, fc.option(fc.nat(), { nil: undefined }), (ladder, previous) => {
        ladder.nominalDelaysMs.forEach((nominal, i) => {
          const { minMs, maxMs } = jitterBounds(ladder, i, previous);
          expect(0).toBeLessThanOrEqual(minMs);
          expect(minMs).toBeLessThanOrEqual(maxMs);
          expect(maxMs).toBeLessThanOrEqual(ladder.maxDelayMs);
          if (ladder.jitter.strategy !== "decorrelated") {
            expect(minMs).toBeLessThanOrEqual(nominal);
            expect(maxMs).toBeGreaterThanOrEqual(nominal);
          }
        });
      }),
    );
  });

  it("every drawn delay lies within its jitter bounds and under the cap, for every strategy", () => {
    fc.assert(
      fc.property(ladderArb, rollsArb, tookArb, firstArb, (ladder, rolls, took, first) => {
        const { delays } = play(ladder, rolls, took, first);
        for (const d of delays) {
          expect(Number.isInteger(d)).toBe(true);
          expect(d).toBeGreaterThanOrEqual(0);
          expect(d).toBeLessThanOrEqual(ladder.maxDelayMs);
        }
      }),
    );
  });

  it("no attempt is scheduled past the window", () => {
    fc.assert(
      fc.property(ladderArb, rollsArb, tookArb, firstArb, (ladder, rolls, took, first) => {
        for (const step of play(ladder, rolls, took, first).steps) {
          if (step.kind === "retry") expect(step.at).toBeLessThanOrEqual(first + ladder.windowMs);
        }
      }),
    );
  });

  it("is exhausted for attempts exactly when all attempts are spent", () => {
    fc.assert(
      fc.property(ladderArb, rollsArb, (ladder, rolls) => {
        // With no time spent in attempts and the shortest draws, the window is the widest it can be.
        const { steps } = play(ladder, rolls, [0], 0);
        const last = steps.at(-1);
        const retries = steps.filter((s) => s.kind === "retry").length;
        if (last?.kind === "exhausted" && last.reason === "attempts") {
          expect(retries).toBe(ladder.attempts - 1);
        } else {
          expect(last).toEqual({ kind: "exhausted", reason: "window" });
          expect(retries).toBeLessThan(ladder.attempts - 1);
        }
        for (let made = ladder.attempts; made < ladder.attempts + 3; made++) {
          const step = nextAttempt({
            ladder,
            attemptsMade: made,
            firstAttemptAt: 0,
            now: 0,
            random: () => 0,
          });
          expect(step).toEqual({ kind: "exhausted", reason: "attempts" });
        }
      }),
    );
  });

  it("a honoured Retry-After replaces the delay exactly and still respects the window", () => {
    fc.assert(
      fc.property(
        ladderArb,
        fc.integer({ min: 0, max: 4 * 3_600_000 }),
        firstArb,
        fc.integer({ min: 0, max: 40 * 86_400_000 }),
        (ladder, delayMs, first, elapsed) => {
          fc.pre(ladder.attempts > 1);
          const now = first + elapsed;
          const step = nextAttempt({
            ladder,
            attemptsMade: 1,
            firstAttemptAt: first,
            now,
            retryAfter: { kind: "honoured", delayMs },
            random: () => 0.5,
          });
          if (now + delayMs <= first + ladder.windowMs) {
            expect(step).toEqual({
              kind: "retry",
              at: now + delayMs,
              delayMs,
              source: "retry-after",
            });
          } else {
            expect(step).toEqual({ kind: "exhausted", reason: "window" });
          }
        },
      ),
    );
  });
});
