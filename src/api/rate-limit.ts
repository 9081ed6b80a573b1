/**
 * API rate limiting per token: a token bucket per token id, in this process. A token that sends
 * faster than its rate (after its burst) is answered 429 with Retry-After, before any work is
 * done. With several API processes, each keeps its own buckets: the limit is per process.
 */
import type { FastifyInstance } from "fastify";
import type { Clock } from "../clock.js";
import { TokenBucket } from "../dlq/token-bucket.js";

/** How fast one token may call the API. */
export interface RateLimitSettings {
  /** Requests per second per token; 0 turns the limit off. */
  ratePerSecond: number;
  /** Requests a token may make at once after being idle. */
  burst: number;
  /** Whether the bootstrap admin token (HOOKLINE_ADMIN_TOKEN or the data dir's) is limited too. */
  limitBootstrapToken: boolean;
}

/** Installs the limit; call after installAuth, whose hook identifies the token first. */
export function installRateLimit(
  app: FastifyInstance,
  deps: { clock: Clock; settings: RateLimitSettings },
): void {
  const { ratePerSecond, burst, limitBootstrapToken } = deps.settings;
  if (ratePerSecond <= 0) return;
  const buckets = new Map<string, TokenBucket>();
  app.addHook("onRequest", async (request, reply) => {
    const identity = request.identity;
    if (!identity) return;
    if (!limitBootstrapToken && identity.bootstrap) return;
    let bucket = buckets.get(identity.tokenId);
    if (!bucket) {
      bucket = new TokenBucket(ratePerSecond, () => deps.clock.now(), burst);
      buckets.set(identity.tokenId, bucket);
    }
    const waitMs = bucket.take();
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
