/**
 * The API keeps a rate-limit bucket per token. A token idle long enough to have its whole burst
 * back is indistinguishable from one never seen, so its bucket is let go: a process that has
 * served many portal links (each its own token) does not hold one bucket per link forever, and a
 * token that comes back is limited exactly as before.
 */
import { expect, it } from "vitest";
import { TokenBuckets } from "../../src/api/rate-limit.js";
import { FakeClock } from "../support/fake-clock.js";

it("lets go of the buckets of idle tokens and limits a returning token as a new one", () => {
  const clock = new FakeClock();
  const buckets = new TokenBuckets({ ratePerSecond: 10, burst: 20 }, () => clock.now());
  for (let i = 0; i < 5_000; i++) expect(buckets.take(`tok_${i}`)).toBe(0);
  expect(buckets.size).toBe(5_000);

  // Two seconds refill a burst of 20 at 10 a second: every bucket is full again.
  clock.advance(2_000);
  for (let i = 0; i < 5_000; i++) expect(buckets.take(`tok_new_${i}`)).toBe(0);
  expect(buckets.size).toBeLessThan(6_000);

  // A token that was let go has its whole burst, and no more.
  for (let i = 0; i < 20; i++) expect(buckets.take("tok_0")).toBe(0);
  expect(buckets.take("tok_0")).toBeGreaterThan(0);
});

it("keeps the bucket of a token still paying back its burst", () => {
  const clock = new FakeClock();
  const buckets = new TokenBuckets({ ratePerSecond: 1, burst: 2 }, () => clock.now());
  expect(buckets.take("busy")).toBe(0);
  expect(buckets.take("busy")).toBe(0);
  for (let i = 0; i < 5_000; i++) buckets.take(`tok_${i}`);
  clock.advance(500);
  for (let i = 0; i < 5_000; i++) buckets.take(`tok_more_${i}`);
  // Half a second gave "busy" half a request back: it is still limited.
  expect(buckets.take("busy")).toBeGreaterThan(0);
});
