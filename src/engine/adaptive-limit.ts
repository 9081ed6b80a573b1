/** When an endpoint counts as slow and how often that is judged. */
export interface AdaptiveSettings {
  slowP99Ms: number;
  windowMs: number;
  evaluateEveryMs: number;
  minSamples: number;
}

/** Slow means a p99 above 3 s over the last minute, judged at most every 5 s on 10+ samples. */
export const DEFAULT_ADAPTIVE: AdaptiveSettings = Object.freeze({
  slowP99Ms: 3000,
  windowMs: 60_000,
  evaluateEveryMs: 5_000,
  minSamples: 10,
});

// Enough for a p99 to mean something, small enough that memory per endpoint stays fixed.
const CAPACITY = 512;
// Where the samples start: most endpoints of a large fleet see a few deliveries at a time, and
// 8 KiB each for samples they never take was most of an idle endpoint's memory (10,000 endpoints
// held 80 MB of empty sample arrays). The arrays double as samples arrive, up to CAPACITY.
const FIRST_CAPACITY = 16;

/**
 * The slow-endpoint rule: halves an endpoint's effective concurrency while its p99 is slow and
 * doubles it back toward the configured limit once it is not. Slow receivers get fewer
 * simultaneous requests instead of a pile of timeouts.
 */
export class AdaptiveLimit {
  private configured: number;
  private current: number;
  private at = new Float64Array(FIRST_CAPACITY);
  private took = new Float64Array(FIRST_CAPACITY);
  private next = 0;
  private size = 0;
  private lastEvaluatedAt = Number.NEGATIVE_INFINITY;

  constructor(
    limit: number,
    private readonly settings: AdaptiveSettings,
    private readonly clock: { now(): number },
  ) {
    this.configured = checkLimit(limit);
    this.current = this.configured;
  }

  /** The configured concurrency limit. */
  get limit(): number {
    return this.configured;
  }

  /** The concurrency to use now: the limit, or less while the endpoint is slow. */
  get effective(): number {
    return this.current;
  }

  /** Changes the configured limit; an undegraded endpoint follows it at once. */
  setLimit(n: number): void {
    const limit = checkLimit(n);
    this.current = effectiveAfterLimitChange(this.current, this.configured, limit);
    this.configured = limit;
  }

  /** Records a finished attempt's duration (timeouts included) and re-judges if one is due. */
  record(durationMs: number): void {
    const now = this.clock.now();
    if (this.size === this.at.length && this.size < CAPACITY) this.grow();
    this.at[this.next] = now;
    this.took[this.next] = durationMs;
    this.next = (this.next + 1) % this.at.length;
    this.size = Math.min(this.at.length, this.size + 1);
    // A clock that went back (before the last judgement) must not hold off the next one until
    // it catches up: that could keep a recovered endpoint's limit halved for hours.
    const since = now - this.lastEvaluatedAt;
    if (since >= 0 && since < this.settings.evaluateEveryMs) return;
    const samples = this.window(now);
    if (samples.length < this.settings.minSamples) return;
    this.lastEvaluatedAt = now;
    if (percentile99(samples) > this.settings.slowP99Ms) {
      this.current = Math.max(1, Math.floor(this.current / 2));
    } else {
      this.current = Math.min(this.configured, this.current * 2);
    }
  }

  /** The 99th percentile (nearest rank) of durations within the window, or null with no samples. */
  p99(): number | null {
    const samples = this.window(this.clock.now());
    return samples.length === 0 ? null : percentile99(samples);
  }

  /** Doubles the sample arrays. Only ever full before the first wrap, so in order from 0. */
  private grow(): void {
    const at = new Float64Array(Math.min(CAPACITY, this.at.length * 2));
    const took = new Float64Array(at.length);
    at.set(this.at);
    took.set(this.took);
    this.next = this.size;
    this.at = at;
    this.took = took;
  }

  private window(now: number): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.size; i++) {
      // A sample stamped after `now` was taken before the clock went back: its age is unknown.
      const age = now - (this.at[i] ?? 0);
      if (age >= 0 && age <= this.settings.windowMs) out.push(this.took[i] ?? 0);
    }
    return out;
  }
}

/**
 * The effective limit once the configured limit goes from `from` to `to`: an undegraded endpoint
 * follows it, a degraded one keeps its lower limit (and never exceeds the new one).
 */
export function effectiveAfterLimitChange(effective: number, from: number, to: number): number {
  return effective === from ? to : Math.min(effective, to);
}

function percentile99(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.ceil(0.99 * sorted.length) - 1] ?? 0;
}

function checkLimit(n: number): number {
  if (!Number.isInteger(n) || n < 1)
    throw new RangeError(`limit must be a whole number >= 1, got ${n}`);
  return n;
}
