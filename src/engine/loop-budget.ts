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
 *
 * Holding fewer deliveries is not enough either: a receiver that answers in a millisecond turns
 * 32 held deliveries into thousands a second, each of which costs this thread a claim, an
 * outcome and the answer's handling, and the machine the request. So while callers wait, the
 * budget also paces how many deliveries the engine may start a second (`take`): halved from
 * what was started while they waited too long, down to `minPace`, or to half as many as the
 * callers posted messages meanwhile if that is more; grown back while they are answered quickly,
 * and lifted at once when nobody calls.
 *
 * It also tells whether callers are there at all (`onCallers`): from the first caller at once,
 * and that they have gone once QUIET_JUDGEMENTS judgements in a row saw none. Meanwhile the
 * sender threads run below the main thread (sender-threads.ts).
 */
import { TokenBucket } from "../token-bucket.js";

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
  /** While callers wait, the engine still starts at least this many deliveries a second. */
  minPace: number;
}

// minPace: accepting 1,000 messages/s with fan-out 10 (10,000 deliveries/s asked of a 2-core
// machine that delivers 10,000-20,000 alone), p99 with delivery held to 500/s 6.7 and 11.6 ms,
// to 1,000/s 9.1 and 10.7, to 2,000/s 16.3 and 17.6, unpaced 13-24 (session 23). The backlog is
// durable and drains at full speed once the callers are gone.
export const DEFAULT_LOOP_BUDGET: LoopBudgetSettings = Object.freeze({
  max: 4096,
  min: 32,
  highLagMs: 20,
  lowLagMs: 5,
  everyMs: 250,
  slowCallerMs: 5,
  minPace: 500,
});

/**
 * Paced deliveries start in batches of this many ms' worth: a claimed batch still goes out as
 * one, and a refused start comes back once a batch has built up rather than for each token.
 */
const PACE_BATCH_MS = 50;

/**
 * Judgements in a row without a caller after which callers are taken to have gone: a second at
 * the default 250 ms, so that the gaps between a client's bursts do not count as leaving.
 */
export const QUIET_JUDGEMENTS = 4;

/** How callers fared since the last judgement, as the pace sees it. */
export type CallerVerdict = "slow" | "quick" | "steady" | "none";

/**
 * The pace after a judgement (deliveries a second; infinite: unpaced), from the pace before and
 * how many a second were started since the last judgement; never below `floor`. Pure.
 */
export function nextPace(
  pace: number,
  startedPerSecond: number,
  verdict: CallerVerdict,
  floor: number,
): number {
  switch (verdict) {
    // From what was actually started, so a pace far above it bites at once.
    case "slow":
      return Math.max(floor, Math.min(pace, startedPerSecond) / 2);
    case "none":
      return Number.POSITIVE_INFINITY;
    case "quick": {
      const grown = pace * 1.25;
      // Once well above what delivery asks for, it no longer paces anything: lifted.
      return grown > 2 * Math.max(startedPerSecond, floor) ? Number.POSITIVE_INFINITY : grown;
    }
    case "steady":
      return Math.max(floor, pace);
  }
}

/** Additive-increase, multiplicative-decrease budget driven by event-loop lag and callers' waits. */
export class LoopBudget {
  private value: number;
  private timer: NodeJS.Timeout | null = null;
  private expectedAt = 0;
  /** The longest a caller waited since the last judgement, ms. */
  private slowestCaller = 0;
  /** How many callers were answered since the last judgement. */
  private callers = 0;
  /** Deliveries the engine may start a second; infinite while unpaced. */
  private paceValue = Number.POSITIVE_INFINITY;
  private bucket: TokenBucket | null = null;
  /** Deliveries started since the last judgement. */
  private started = 0;
  /** Whether callers are there (see `onCallers`), and for how many judgements none came. */
  private calling = false;
  private quietJudgements = 0;

  constructor(
    private readonly settings: LoopBudgetSettings,
    /** How many deliveries the engine holds now: halving starts from there, so it bites at once. */
    private readonly held: () => number = () => this.value,
    /** The clock the pace's tokens come back on, ms: the engine's, so tests can hold it still. */
    private readonly paceClock: () => number = () => performance.now(),
    /** Told when callers come (true) and when they have gone (false); once each way. */
    private readonly onCallers: (calling: boolean) => void = () => {},
    /** Told when a judgement lifts the pace, so that what waits for it need not wait its timer. */
    private readonly onUnpaced: () => void = () => {},
  ) {
    this.value = settings.max;
  }

  get current(): number {
    return this.value;
  }

  /** Deliveries a second the engine may start now; infinite while unpaced. */
  get pace(): number {
    return this.paceValue;
  }

  /**
   * Asked before each delivery starts: 0, and it is counted, or how many ms until one may start
   * (then nothing is counted, and the caller asks again after that).
   */
  take(): number {
    const wait = this.bucket?.take() ?? 0;
    if (wait === 0) this.started++;
    // Refused: come back for a whole batch, not for each token (one request a timer apiece).
    return wait === 0 ? 0 : Math.max(wait, PACE_BATCH_MS);
  }

  /** A caller of the API waited `ms` for its message to be committed. */
  callerWaited(ms: number): void {
    this.callers++;
    if (ms > this.slowestCaller) this.slowestCaller = ms;
    if (this.calling) return;
    this.calling = true;
    this.quietJudgements = 0;
    this.onCallers(true);
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
  // Timed with the global `performance` (not perf_hooks' export, the same object), which tests on
  // fake timers replace: their judgements then run exactly on time, however slow the machine.
  private arm(): void {
    this.expectedAt = performance.now() + this.settings.everyMs;
    this.timer = setTimeout(() => {
      this.judge(performance.now() - this.expectedAt);
      // Idle: stop, so an idle hookline runs no timers for this; the next watch() starts again,
      // unpaced (holding nothing, it had nothing to pace).
      if (this.timer && this.held() > 0) this.arm();
      else {
        this.timer = null;
        this.setPace(Number.POSITIVE_INFINITY);
      }
    }, this.settings.everyMs);
    this.timer.unref();
  }

  /** Stops judging now (the engine is stopping). */
  rest(): void {
    this.setPace(Number.POSITIVE_INFINITY);
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = null;
  }

  private setPace(pace: number): void {
    if (pace === this.paceValue) return;
    this.paceValue = pace;
    this.bucket =
      pace === Number.POSITIVE_INFINITY
        ? null
        : new TokenBucket(
            pace,
            this.paceClock,
            Math.max(1, Math.floor((pace * PACE_BATCH_MS) / 1000)),
          );
  }

  private judge(lagMs: number): void {
    const s = this.settings;
    const waited = this.slowestCaller;
    const callers = this.callers;
    this.slowestCaller = 0;
    this.callers = 0;
    this.judgeCallersGone(callers);
    // Only where callers' waits are a signal: with a store across the network, never paced.
    if (s.slowCallerMs !== null) this.judgePace(lagMs, waited, callers, s.slowCallerMs);
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

  /**
   * Judged only while the engine holds work (see `watch`): callers that leave an idle engine are
   * found gone once it has work again, when making way for them would start to cost delivery.
   */
  private judgeCallersGone(callers: number): void {
    if (callers > 0) this.quietJudgements = 0;
    else if (this.calling && ++this.quietJudgements >= QUIET_JUDGEMENTS) {
      this.calling = false;
      this.onCallers(false);
    }
  }

  private judgePace(lagMs: number, waited: number, callers: number, slowCallerMs: number): void {
    // Since the last judgement: the judging timer's period, and however late it ran.
    const windowMs = this.settings.everyMs + Math.max(0, lagMs);
    const startedPerSecond = (this.started * 1000) / windowMs;
    this.started = 0;
    const verdict: CallerVerdict =
      waited > slowCallerMs
        ? "slow"
        : callers === 0
          ? "none"
          : waited <= slowCallerMs / 2 && lagMs < this.settings.lowLagMs
            ? "quick"
            : "steady";
    // Clients posting thousands a second wait mostly behind each other, not behind delivery:
    // pacing it far below what they post would only grow a backlog for claims to read back
    // later (and keep the intake from taking any). Half their rate, alternated against a floor
    // of 500 alone and against one delivery per message: with fan-out 10 at 1,000 a second,
    // p99 8.4-8.7 ms, 6.7-11.6 and 10.8-16.5; with fan-out 1, 4.9-5.8, 3.6-7.9 and 3.3-5.3.
    const floor = Math.max(this.settings.minPace, (callers * 1000) / windowMs / 2);
    const paced = this.paceValue !== Number.POSITIVE_INFINITY;
    this.setPace(nextPace(this.paceValue, startedPerSecond, verdict, floor));
    if (paced && this.paceValue === Number.POSITIVE_INFINITY) this.onUnpaced();
  }
}
