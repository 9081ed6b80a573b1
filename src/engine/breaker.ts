import { formatDuration } from "./ladder.js";
import { laterOfWaitAndRetryAfter } from "./retry-after.js";

/** closed: deliver normally; open: hold deliveries until a probe is due; half-open: limited trial traffic. */
export type CircuitState = "closed" | "open" | "half-open";

/** The persistable part of a breaker's state. */
export interface CircuitSnapshot {
  state: CircuitState;
  since: number;
  reason: string | null;
  nextProbeAt: number | null;
  reopenCount: number;
  /**
   * When the circuit opened from closed: the start of the run of failures that its reopenings
   * (each of which moves `since` on) and half-open trials continue. Null while closed, and for a
   * circuit stored before hookline kept it whose opening is no longer known (absent: the same).
   */
  openedAt?: number | null;
}

/** The circuit of an endpoint none was ever stored for: it never opened, closed since `madeAt`. */
export function neverOpened(madeAt: number): CircuitSnapshot {
  return {
    state: "closed",
    since: madeAt,
    reason: null,
    nextProbeAt: null,
    reopenCount: 0,
    openedAt: null,
  };
}

/** Thresholds and waits of a circuit breaker (milliseconds). */
export interface BreakerSettings {
  consecutiveFailures: number;
  consecutiveWindowMs: number;
  windowFailures: number;
  windowMs: number;
  probeDelayMs: number;
  maxProbeDelayMs: number;
  halfOpenConcurrency: number;
  halfOpenSuccesses: number;
}

/** 5 consecutive failures within 60 s or 20 within 5 min; probe after 5 min, backing off to 1 h. */
export const DEFAULT_BREAKER: BreakerSettings = Object.freeze({
  consecutiveFailures: 5,
  consecutiveWindowMs: 60_000,
  windowFailures: 20,
  windowMs: 5 * 60_000,
  probeDelayMs: 5 * 60_000,
  maxProbeDelayMs: 60 * 60_000,
  halfOpenConcurrency: 2,
  halfOpenSuccesses: 5,
});

/** A change of state, for logs, events and persistence. */
export interface CircuitTransition {
  from: CircuitState;
  to: CircuitState;
  at: number;
  reason: string;
}

/** Whether an attempt may be sent now; `retryAt` says when to ask again, if known. */
export type Admission =
  { allowed: true; probe: boolean } | { allowed: false; retryAt: number | null };

/** Per-endpoint circuit breaker: a small state machine on an injected clock. */
export class CircuitBreaker {
  private state: CircuitState;
  private since: number;
  private reason: string | null;
  private nextProbeAt: number | null;
  private reopenCount: number;
  private openedAt: number | null;
  // Times of the current run of failures (at most consecutiveFailures) and of recent
  // failures (at most windowFailures): both bounded, whatever the failure rate.
  private streak: number[] = [];
  private recent: number[] = [];
  private probeOutstanding = false;
  private halfOpenWins = 0;

  constructor(
    private readonly settings: BreakerSettings,
    private readonly clock: { now(): number },
    initial?: CircuitSnapshot,
  ) {
    // A restored breaker forgets failure history and any outstanding probe: after a restart
    // that probe's result is lost, so another must be allowed.
    this.state = initial?.state ?? "closed";
    this.since = initial?.since ?? clock.now();
    this.reason = initial?.reason ?? null;
    this.nextProbeAt = initial?.nextProbeAt ?? null;
    this.reopenCount = initial?.reopenCount ?? 0;
    this.openedAt = initial?.openedAt ?? null;
    if (this.state === "open" && this.nextProbeAt === null) this.nextProbeAt = this.since;
  }

  /** The current state, suitable for persisting and passing back to the constructor. */
  snapshot(): CircuitSnapshot {
    return {
      state: this.state,
      since: this.since,
      reason: this.reason,
      nextProbeAt: this.nextProbeAt,
      reopenCount: this.reopenCount,
      openedAt: this.openedAt,
    };
  }

  /**
   * Whether the circuit is open with no probe out, waiting for its next probe: then a probe
   * brought forward in the store (see {@link takeSoonerProbe}) may be taken.
   */
  waitingForProbe(): boolean {
    return this.state === "open" && !this.probeOutstanding;
  }

  /**
   * Takes the stored circuit's next probe when it is sooner than this one's and the stored
   * circuit is still open: a person changed where the endpoint is sent to (its URL), and the
   * store brought the probe forward to then. Nothing else of the stored circuit is taken.
   */
  takeSoonerProbe(stored: CircuitSnapshot | null): void {
    if (!this.waitingForProbe() || stored?.state !== "open") return;
    const sooner = stored.nextProbeAt;
    if (sooner !== null && (this.nextProbeAt === null || sooner < this.nextProbeAt)) {
      this.nextProbeAt = sooner;
    }
  }

  /** Whether the circuit is open: nothing but its probe goes, once due. */
  isOpen(): boolean {
    return this.state === "open";
  }

  /** Whether the circuit is closed: the endpoint's own limit is the only bound. */
  isClosed(): boolean {
    return this.state === "closed";
  }

  /**
   * The most requests the circuit lets out at once: the trickle's while half-open, else none of
   * its own (closed: the endpoint's limit; open: the probe, admitted one at a time).
   */
  trickle(): number {
    return this.state === "half-open"
      ? this.settings.halfOpenConcurrency
      : Number.POSITIVE_INFINITY;
  }

  /** Asks to send one attempt while `inFlight` attempts to this endpoint are already out. */
  admit(inFlight: number): Admission {
    if (this.state === "closed") return { allowed: true, probe: false };
    if (this.state === "half-open") {
      return inFlight < this.settings.halfOpenConcurrency
        ? { allowed: true, probe: false }
        : { allowed: false, retryAt: null };
    }
    // Open: exactly one probe at a time, and only once its wait is over.
    if (this.probeOutstanding) return { allowed: false, retryAt: null };
    const due = this.nextProbeAt ?? this.since;
    if (this.clock.now() < due) return { allowed: false, retryAt: due };
    this.probeOutstanding = true;
    return { allowed: true, probe: true };
  }

  /** Records a successful attempt; returns the transition it caused, if any. */
  onSuccess(wasProbe: boolean): CircuitTransition | null {
    switch (this.state) {
      case "closed":
        this.streak = [];
        return null;
      case "open":
        // Only the probe speaks for the endpoint now; older requests' results are stale.
        if (!wasProbe || !this.probeOutstanding) return null;
        this.probeOutstanding = false;
        this.halfOpenWins = 0;
        return this.move("half-open", "probe succeeded", null, this.clock.now());
      case "half-open":
        this.halfOpenWins++;
        if (this.halfOpenWins < this.settings.halfOpenSuccesses) return null;
        this.reopenCount = 0;
        this.openedAt = null;
        this.streak = [];
        this.recent = [];
        return this.move(
          "closed",
          `${this.halfOpenWins} successes while half-open`,
          null,
          this.clock.now(),
        );
    }
  }

  /**
   * Records a failed attempt (`reason` e.g. "HTTP 503"); returns the transition it caused, if any.
   * `notBefore` is when the receiver's Retry-After lets it be asked again (honoured or capped as
   * for a retry): a failure that opens the circuit puts the probe there if that is later than the
   * wait, since a receiver that said "back in an hour" is not probed in five minutes.
   */
  onFailure(
    wasProbe: boolean,
    reason: string,
    notBefore: number | null = null,
  ): CircuitTransition | null {
    const now = this.clock.now();
    switch (this.state) {
      case "closed":
        return this.recordClosedFailure(now, reason, notBefore);
      case "open":
        if (!wasProbe || !this.probeOutstanding) return null;
        this.probeOutstanding = false;
        return this.reopen(now, `probe failed: ${reason}`, notBefore);
      case "half-open":
        return this.reopen(now, `failure while half-open: ${reason}`, notBefore);
    }
  }

  /**
   * The probe was answered 429: the receiver is pacing us, which is no failure, but no sign of
   * health either. The circuit stays open and the next probe waits the current wait again, or
   * until `notBefore` (the receiver's Retry-After) if that is later; the wait does not grow.
   * Returns the change to persist, or null if the answer was not the outstanding probe's.
   */
  onProbeRateLimited(notBefore: number | null): CircuitTransition | null {
    if (this.state !== "open" || !this.probeOutstanding) return null;
    this.probeOutstanding = false;
    const now = this.clock.now();
    const next = laterOfWaitAndRetryAfter(now + this.probeWait(), notBefore);
    return this.move("open", `probe answered HTTP 429${putOff(next.asked)}`, next.at, now);
  }

  /** The probe was admitted but never sent (e.g. shutdown): let another be admitted. */
  cancelProbe(): void {
    this.probeOutstanding = false;
  }

  private recordClosedFailure(
    now: number,
    reason: string,
    notBefore: number | null,
  ): CircuitTransition | null {
    const s = this.settings;
    // Failures stamped after `now` were recorded before the clock went back: how long ago they
    // happened is unknown, so they count towards neither rule rather than look like a burst.
    if ((this.recent.at(-1) ?? now) > now) {
      this.streak = this.streak.filter((t) => t <= now);
      this.recent = this.recent.filter((t) => t <= now);
    }
    this.streak.push(now);
    if (this.streak.length > s.consecutiveFailures) this.streak.shift();
    this.recent.push(now);
    if (this.recent.length > s.windowFailures) this.recent.shift();
    while (this.recent.length > 0 && (this.recent[0] ?? now) < now - s.windowMs)
      this.recent.shift();

    let why: string | null = null;
    const first = this.streak[0] ?? now;
    if (this.streak.length >= s.consecutiveFailures && now - first <= s.consecutiveWindowMs) {
      why = `${s.consecutiveFailures} consecutive failures within ${formatDuration(s.consecutiveWindowMs)}`;
    } else if (this.recent.length >= s.windowFailures) {
      why = `${s.windowFailures} failures within ${formatDuration(s.windowMs)}`;
    }
    if (why === null) return null;
    this.streak = [];
    this.recent = [];
    this.reopenCount = 0;
    this.openedAt = now;
    this.probeOutstanding = false;
    const next = laterOfWaitAndRetryAfter(now + s.probeDelayMs, notBefore);
    return this.move("open", `${why}; last: ${reason}${putOff(next.asked)}`, next.at, now);
  }

  // Each reopening doubles the wait before the next probe, up to maxProbeDelayMs, so a
  // receiver that is still down is not hammered every few minutes for hours. A later Retry-After
  // moves the probe, not the wait: the next reopening doubles from where it was.
  private reopen(now: number, why: string, notBefore: number | null): CircuitTransition {
    this.reopenCount++;
    this.halfOpenWins = 0;
    const next = laterOfWaitAndRetryAfter(now + this.probeWait(), notBefore);
    return this.move("open", `${why}${putOff(next.asked)}`, next.at, now);
  }

  /** The wait before a probe after `reopenCount` reopenings. */
  private probeWait(): number {
    const s = this.settings;
    return Math.min(s.maxProbeDelayMs, s.probeDelayMs * 2 ** this.reopenCount);
  }

  // `at` is the time the caller read for the failure or success that made the change: a second read
  // here would put `since` a millisecond or so after `openedAt` and the probe's wait, which count
  // from the caller's read, and the banner would name one moment as two.
  private move(
    to: CircuitState,
    reason: string,
    nextProbeAt: number | null,
    at: number,
  ): CircuitTransition {
    const from = this.state;
    this.state = to;
    this.since = at;
    this.reason = reason;
    this.nextProbeAt = nextProbeAt;
    return { from, to, at, reason };
  }
}

/** How a reason ends when the receiver's Retry-After put the probe later than the wait would. */
export const PUT_OFF_BY_RETRY_AFTER = "; the receiver's Retry-After put the probe off";

/**
 * The reason's words for the probe: whether the receiver's Retry-After put it off, and no wait
 * ("next probe in 1 h" was true only as it was written, and stayed after a changed URL brought
 * the probe forward): when the probe goes is the circuit's `nextProbeAt`.
 */
const putOff = (asked: boolean): string => (asked ? PUT_OFF_BY_RETRY_AFTER : "");
