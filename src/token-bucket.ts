/**
 * A token bucket on an injected clock: `ratePerSecond` tokens a second, at most `burst` saved up.
 * A bulk replay takes one token per replay, so a receiver that just recovered sees the replays
 * spread out at the job's rate rather than all at once; the API's rate limit takes one per
 * request; a paced engine one per delivery it starts (loop-budget.ts), and an endpoint with a
 * rate limit one per request to it (engine/runtime.ts).
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly ratePerSecond: number,
    private readonly now: () => number,
    private readonly burst = 1,
  ) {
    if (!(ratePerSecond > 0)) throw new RangeError("ratePerSecond must be positive");
    if (!(burst >= 1)) throw new RangeError("burst must be at least 1");
    // Starts full: the first replay goes at once.
    this.tokens = burst;
    this.last = now();
  }

  /** Takes a token and returns 0, or returns how many ms until one is available (taking none). */
  take(): number {
    this.refill();
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.tokens) * 1000) / this.ratePerSecond);
  }

  /** How many ms until a token is available (0: one is now), taking none. */
  wait(): number {
    this.refill();
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) * 1000) / this.ratePerSecond);
  }

  /** Whether the whole burst is saved up again: the bucket is then the same as a new one. */
  isFull(): boolean {
    this.refill();
    return this.tokens >= this.burst;
  }

  private refill(): void {
    const t = this.now();
    const elapsed = Math.max(0, t - this.last);
    this.last = t;
    this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.ratePerSecond) / 1000);
  }
}
