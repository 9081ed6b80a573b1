/**
 * API rate limiting per token: a token bucket per token id, in this process. A token that sends
 * faster than its rate (after its burst) is answered 429 with Retry-After, before any work is
 * done. With several API processes, each keeps its own buckets: the limit is per process.
 */
import type { FastifyInstance } from "fastify";
import type { Clock } from "../clock.js";
import { TokenBucket } from "../token-bucket.js";

/** How fast one token may call the API. */
export interface RateLimitSettings {
  /** Requests per second per token; 0 turns the limit off. */
  ratePerSecond: number;
  /** Requests a token may make at once after being idle. */
  burst: number;
  /** Whether the bootstrap admin token (HOOKLINE_ADMIN_TOKEN or the data dir's) is limited too. */
  limitBootstrapToken: boolean;
}

/**
 * Installs the limit; installAuth calls it between its two hooks: after the token is known, before
 * what it may reach is checked, so requests refused there (403, 404) are counted too.
 */
export function installRateLimit(
  app: FastifyInstance,
  deps: { clock: Clock; settings: RateLimitSettings },
): void {
  const { ratePerSecond, limitBootstrapToken } = deps.settings;
  if (ratePerSecond <= 0) return;
  const buckets = new TokenBuckets(deps.settings, () => deps.clock.now());
  app.addHook("onRequest", async (request, reply) => {
    const identity = request.identity;
    if (!identity) return;
    if (!limitBootstrapToken && identity.bootstrap) return;
    const waitMs = buckets.take(identity.tokenId);
    if (waitMs === 0) return;
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    return reply
      .code(429)
      .header("retry-after", String(seconds))
      .send({
        code: "rate_limited",
        detail: `this token may make ${ratePerSecond} requests per second; try again in ${seconds} s`,
      });
  });
}

/** Buckets are looked over for idle ones once there are this many (and then twice as many as kept). */
const FIRST_SWEEP = 1_024;

/**
 * One token bucket per API token. Every token a process has seen would otherwise keep a bucket
 * for as long as it runs (a portal link is a token of its own), so the buckets of tokens idle
 * long enough to have saved up their whole burst, which are the same as new ones, are let go
 * whenever the count doubles: amortised, a constant cost per new bucket.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, TokenBucket>();
  private sweepAt = FIRST_SWEEP;

  constructor(
    private readonly settings: Pick<RateLimitSettings, "ratePerSecond" | "burst">,
    private readonly now: () => number,
  ) {}

  /** Takes a request from the token's bucket: 0, or how many ms until it may make one. */
  take(tokenId: string): number {
    let bucket = this.buckets.get(tokenId);
    if (!bucket) {
      if (this.buckets.size >= this.sweepAt) this.sweep();
      bucket = new TokenBucket(this.settings.ratePerSecond, this.now, this.settings.burst);
      this.buckets.set(tokenId, bucket);
    }
    return bucket.take();
  }

  /** How many buckets are kept. */
  get size(): number {
    return this.buckets.size;
  }

  private sweep(): void {
    for (const [id, bucket] of this.buckets) if (bucket.isFull()) this.buckets.delete(id);
    this.sweepAt = Math.max(FIRST_SWEEP, 2 * this.buckets.size);
  }
}
