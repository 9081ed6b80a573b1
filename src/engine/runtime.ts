/**
 * What the engine keeps in memory per endpoint: its settings, its concurrency slots and queue,
 * its adaptive limit and its circuit breaker.
 */
import type { Application, Endpoint } from "../domain/types.js";
import type { ClaimedDelivery } from "../store/port.js";
import { TokenBucket } from "../token-bucket.js";
import { AdaptiveLimit, type AdaptiveSettings } from "./adaptive-limit.js";
import {
  CircuitBreaker,
  neverOpened,
  type BreakerSettings,
  type CircuitSnapshot,
} from "./breaker.js";
import type { TimerHandle } from "../clock.js";
import type { EndpointLiveStatus } from "./control.js";
import { resolvePolicy, type PolicyDefaults, type ResolvedPolicy } from "./policy.js";

/** One endpoint as the engine runs it. */
export class EndpointRuntime {
  endpoint: Endpoint;
  policy: ResolvedPolicy;
  /** Settings changed through the API; reload before the next send. */
  stale = false;
  inFlight = 0;
  /** In a fleet: being let go of (no new claims for it), and why. */
  leaving: "idle" | "handover" | null = null;
  /**
   * The engine's claims numbered up to this one had started when the endpoint was marked as
   * leaving: while any of them runs it may still bring deliveries of this endpoint. Later claims
   * pass it over.
   */
  leavingAfterClaim = 0;
  /** When the engine last had anything to do for it. */
  lastActiveAt: number;
  /** Claimed deliveries waiting for a free slot; they spend no attempt while they wait. */
  readonly queue: ClaimedDelivery[] = [];
  readonly limit: AdaptiveLimit;
  readonly breaker: CircuitBreaker;
  /**
   * The endpoint's rate limit (Svix's `rateLimit`/`throttleRate`, or its application's): the
   * most requests a second started to it, attempts, retries, replays and probes alike. Null: none.
   */
  throttle: TokenBucket | null = null;
  private throttleRate: number | null = null;
  /** Set while the dispatcher waits for the throttle's next token. */
  throttleTimer: TimerHandle | null = null;

  constructor(
    endpoint: Endpoint,
    app: Application | null,
    private readonly defaults: PolicyDefaults,
    settings: { breaker: BreakerSettings; adaptive: AdaptiveSettings },
    private readonly clock: { now(): number },
    circuit: CircuitSnapshot | null,
  ) {
    this.endpoint = endpoint;
    this.setThrottle(endpoint, app);
    this.lastActiveAt = clock.now();
    this.policy = resolvePolicy(defaults, app?.deliveryPolicy ?? null, endpoint.deliveryPolicy);
    this.limit = new AdaptiveLimit(this.policy.concurrencyLimit, settings.adaptive, clock);
    // A circuit never stored has never opened: closed since the endpoint was made, as the API
    // shows it, not since this load (which every restart and reload would move on).
    this.breaker = new CircuitBreaker(
      settings.breaker,
      clock,
      circuit ?? neverOpened(endpoint.createdAt),
    );
  }

  /** Applies new settings, keeping the live counters, the breaker and the latency history. */
  reload(endpoint: Endpoint, app: Application | null): void {
    this.endpoint = endpoint;
    this.policy = resolvePolicy(
      this.defaults,
      app?.deliveryPolicy ?? null,
      endpoint.deliveryPolicy,
    );
    this.limit.setLimit(this.policy.concurrencyLimit);
    this.setThrottle(endpoint, app);
    this.stale = false;
  }

  /**
   * Requests spread evenly, in bursts of a twentieth of a second's at most, and never under one
   * (so a second sees at most 5 % over the rate, or one request over it under 40 a second); kept,
   * with the tokens it holds, while the rate stays the same.
   */
  private setThrottle(endpoint: Endpoint, app: Application | null): void {
    // 0 is "no limit", as null is: a rate of nothing would hold the endpoint's deliveries for ever.
    const rate = (endpoint.rateLimit ?? app?.rateLimit) || null;
    if (rate === this.throttleRate) return;
    this.throttleRate = rate;
    const burst = Math.max(1, Math.floor((rate ?? 0) / 20));
    this.throttle = rate ? new TokenBucket(rate, () => this.clock.now(), burst) : null;
  }

  /**
   * Whether the next claim must skip this endpoint: it has no free slot, or its open circuit has a
   * probe out. Skipping keeps a slow or broken endpoint from filling a batch meant for others; a
   * finishing attempt wakes the engine to look again. An open circuit with nothing out is not
   * skipped: its deliveries were moved to the probe time, so they come due exactly then (or at
   * their own time, sooner, those with no attempt left by then, to be given up).
   */
  isFull(): boolean {
    const waiting = this.inFlight + this.queue.length;
    if (this.breaker.isOpen()) return waiting > 0;
    // A rate-limited endpoint holds one second of requests at most, and a half-open one its
    // trickle's: more would wait in hand, under a lease, shown as being sent, for seconds or
    // minutes while other workers could not have them.
    return waiting >= this.limit.effective || this.room() <= 0;
  }

  /**
   * How many more deliveries it may hold, in flight and waiting (negative when it holds more): a
   * rate-limited endpoint one second of requests; a half-open circuit's endpoint its trickle's,
   * within its own limit (the rest are pending in the store, as the API shows them, not claimed
   * as if being sent while they wait for the trickle); any other as many as a claim brings.
   */
  room(): number {
    const most = Math.min(this.throttleRate ?? Number.POSITIVE_INFINITY, this.trial());
    if (most === Number.POSITIVE_INFINITY) return most;
    return most - this.inFlight - this.queue.length;
  }

  /**
   * What a half-open circuit's trickle can have out at once here, within the endpoint's limit (one
   * at a limit of 1); infinite otherwise, the circuit setting no bound of its own.
   */
  private trial(): number {
    const trickle = this.breaker.trickle();
    return trickle === Number.POSITIVE_INFINITY ? trickle : Math.min(trickle, this.limit.effective);
  }

  /** True while the engine must keep this runtime (work in hand or a circuit to remember). */
  get busy(): boolean {
    return this.inFlight > 0 || this.queue.length > 0 || !this.breaker.isClosed();
  }

  status(): EndpointLiveStatus {
    return {
      limit: this.limit.limit,
      effectiveLimit: this.limit.effective,
      inFlight: this.inFlight,
      queued: this.queue.length,
      p99LatencyMs: this.limit.p99(),
      circuit: this.breaker.snapshot(),
    };
  }
}
