/**
 * Keeps delivery from starving the API in the same process. When the event loop lags (the process
 * is busier than it can keep up with), or a caller posting a message waited too long for its
 * commit, the number of deliveries the engine may hold shrinks; when the loop is responsive and
 * callers are answered quickly again, it grows back (quickly once no caller is calling).
 * Accepting a message is cheap and must stay fast even while delivery is behind — a durable
 * backlog can wait, a caller should not.
 *
 * Lag alone is not enough: on a machine that is short of cores, delivery can keep every turn of
 * the loop short and still take the CPU the callers' requests need (measured: timer lag under
 * 10 ms while accepting with fan-out 10 answered in 14 ms at the median). The callers' own wait
 * is the signal that matters to them.
 */
import { performance } from "node:perf_hooks";

export interface LoopBudgetSettings {
  /** The most deliveries held at once, when the loop is responsive. */
  max: number;
  /** Never less than this, so delivery always makes progress. */
  min: number;
  /** Lag (how late the judging timer fires, ms) above which the budget shrinks. */
  highLagMs: number;
  /** Lag below which it grows back. */
  lowLagMs: number;
  /** How often lag is judged while the engine has work. */
  everyMs: number;
  /**
   * A caller waiting longer than this for its message's commit shrinks the budget; null: callers'
   * waits are not a signal (their commit is mostly a database's round trips, not this thread).
   */
  slowCallerMs: number | null;
}

export const DEFAULT_LOOP_BUDGET: LoopBudgetSettings = Object.freeze({
  max: 4096,
  min: 32,
  highLagMs: 20,
  lowLagMs: 5,
  everyMs: 250,
  slowCallerMs: 5,
});

/** Additive-increase, multiplicative-decrease budget driven by event-loop lag and callers' waits. */
export class LoopBudget {
  private value: number;
  private timer: NodeJS.Timeout | null = null;
  private expectedAt = 0;
  /** The longest a caller waited since the last judgement, ms. */
  private slowestCaller = 0;
  /** How many callers were answered since the last judgement. */
  private callers = 0;

  constructor(
    private readonly settings: LoopBudgetSettings,
    /** How many deliveries the engine holds now: halving starts from there, so it bites at once. */
    private readonly held: () => number = () => this.value,
  ) {
    this.value = settings.max;
  }

  get current(): number {
    return this.value;
  }

  /** A caller of the API waited `ms` for its message to be committed. */
  callerWaited(ms: number): void {
    this.callers++;
    if (ms > this.slowestCaller) this.slowestCaller = ms;
  }

  /**
   * Starts judging (call whenever the engine takes work); cheap to call repeatedly. Judging goes
   * on at its own pace until a judgement finds the engine holding nothing: an engine that empties
   * and refills between judgements (deliveries answered faster than `everyMs`) is still judged,
   * where restarting the timer at every refill would never let it fire.
   */
  watch(): void {
    if (this.timer) return;
    this.arm();
  }

  // A timer that fires late by N ms means the loop was busy for about N ms: that is the lag.
  private arm(): void {
    this.expectedAt = performance.now() + this.settings.everyMs;
    this.timer = setTimeout(() => {
      this.judge(performance.now() - this.expectedAt);
      // Idle: stop, so an idle hookline runs no timers for this; the next watch() starts again.
      if (this.timer && this.held() > 0) this.arm();
      else this.timer = null;
    }, this.settings.everyMs);
    this.timer.unref();
  }

  /** Stops judging now (the engine is stopping). */
  rest(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = null;
  }

  private judge(lagMs: number): void {
    const s = this.settings;
    const waited = this.slowestCaller;
    const callers = this.callers;
    this.slowestCaller = 0;
    this.callers = 0;
    // Callers waiting is the stronger signal: halve what is held (not the budget, which may be
    // far above it), so delivery makes way at the first judgement.
    const slowCallerMs = s.slowCallerMs ?? Number.POSITIVE_INFINITY;
    if (waited > slowCallerMs) {
      this.value = Math.max(s.min, Math.floor(Math.min(this.value, this.held()) / 2));
    } else if (lagMs > s.highLagMs) this.value = Math.max(s.min, Math.floor(this.value * 0.7));
    else if (lagMs < s.lowLagMs && callers === 0) {
      // Nobody is calling: nothing to make way for, so win back the budget quickly (a backlog
      // left behind by a flood of callers drains at full speed within a couple of seconds).
      this.value = Math.min(s.max, this.value * 2);
    } else if (lagMs < s.lowLagMs && waited <= slowCallerMs / 2) {
      this.value = Math.min(s.max, this.value + 64);
    }
  }
}
