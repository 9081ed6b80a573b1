/**
 * hookline's alert rules, pure: each evaluation turns the samples of the last window into
 * conditions (rates and ages, never raw counts), and a small state machine per condition moves
 * it from inactive to pending to firing (after the rule's `for` duration) and back to resolved
 * (level rules only once their condition stayed clear for LEVEL_CLEAR_FOR_MS).
 * The evaluator (evaluator.ts) feeds it samples on the injected clock and persists what changes.
 */
import type { CircuitState } from "../engine/breaker.js";
import type { AlertRecord, EndpointStopped } from "../store/port.js";
import type { EndpointCounts } from "./tally.js";

/** Thresholds of every rule; see docs/observability.md and the HOOKLINE_ALERT_* variables. */
export interface AlertThresholds {
  /** Window over which rates are computed. */
  windowMs: number;
  /** Share of ended deliveries that exhausted their ladder (0–1). */
  exhaustionRate: number;
  exhaustionForMs: number;
  /** Ended deliveries in the window below which the exhaustion rate is not judged. */
  exhaustionMinDeliveries: number;
  dlqMaxAgeMs: number;
  /** An endpoint below this success rate (0–1)… */
  endpointSuccessRate: number;
  /** …while all other endpoints together are at or above this one. */
  healthySuccessRate: number;
  endpointMinAttempts: number;
  endpointForMs: number;
  /** Nothing left a non-empty dead-letter queue for this long, and its oldest record stayed. */
  dlqStuckMs: number;
  queueLagMs: number;
  /** Alert when the last drill failed or none passed for this long; null: only on failure. */
  drillMaxAgeMs: number | null;
}

/** Sensible defaults, also those of the shipped Prometheus rules. */
export const DEFAULT_THRESHOLDS: Readonly<AlertThresholds> = Object.freeze({
  windowMs: 5 * 60_000,
  exhaustionRate: 0.01,
  exhaustionForMs: 10 * 60_000,
  exhaustionMinDeliveries: 20,
  dlqMaxAgeMs: 24 * 3_600_000,
  endpointSuccessRate: 0.5,
  healthySuccessRate: 0.95,
  endpointMinAttempts: 10,
  endpointForMs: 5 * 60_000,
  dlqStuckMs: 60 * 60_000,
  queueLagMs: 5 * 60_000,
  drillMaxAgeMs: null,
});

/**
 * How long a level alert (`queue_lag`, `dlq_oldest_age`: a value read from the store against a
 * threshold) must find its condition clear before it resolves. A backlog that hovers around
 * the threshold would otherwise fire and resolve every few minutes; rate rules are smoothed by
 * their window, and the others end on an event (a record leaving, a drill passing).
 */
export const LEVEL_CLEAR_FOR_MS = 10 * 60_000;

/** What the evaluator observed at one tick. */
export interface AlertSample {
  at: number;
  /** Cumulative since start. */
  ended: number;
  exhausted: number;
  dlqLeft: number;
  /** When a record last left the queue through any process sharing the store (`dlqLeft` counts this one's). */
  dlqClosedAt: number | null;
  /** Attempts and successes per endpoint since the previous sample. */
  endpoints: Map<string, EndpointCounts>;
  /**
   * Endpoints down now: their circuit is open or half-open, as stored (hookline's own drill
   * endpoints left out). An open circuit sends only probes, minutes apart, so a receiver that is
   * down never makes the attempts a rate needs.
   */
  down: Map<string, Exclude<CircuitState, "closed">>;
  /**
   * Endpoints nothing is sent to any more, disabled or deleted, of those the rules judge (see
   * {@link AlertRules.endpointsJudged}): left out of `endpoint_failing`, their alerts resolving at
   * once. Enabled again, an endpoint is judged on its attempts since alone.
   */
  stopped: Map<string, EndpointStopped>;
  dlqDepth: number;
  dlqOldestAt: number | null;
  oldestDueAt: number | null;
  /** The latest drill, if any ran. */
  lastDrill: { at: number; passed: boolean } | null;
  lastDrillPassedAt: number | null;
}

/** The rules, by the name their alerts carry. */
type RuleName =
  | "retry_exhaustion_rate"
  | "dlq_oldest_age"
  | "endpoint_failing"
  | "dlq_stuck"
  | "queue_lag"
  | "drill_failing";

/**
 * How far back each rule's verdict looks into the samples. A process samples afresh from its
 * start, so an alert it takes on is judged by a rule over rates only once it has sampled that
 * long since; rules that read the store's state (ages, the drill) judge it at once.
 */
const LOOKS_BACK: Record<RuleName, (t: AlertThresholds) => number> = {
  retry_exhaustion_rate: (t) => t.windowMs,
  endpoint_failing: (t) => t.windowMs,
  dlq_stuck: (t) => t.dlqStuckMs,
  dlq_oldest_age: () => 0,
  queue_lag: () => 0,
  drill_failing: () => 0,
};

/** One rule's verdict for one subject (the system, or one endpoint). */
interface Condition {
  key: string;
  rule: RuleName;
  severity: AlertRecord["severity"];
  endpointId: string | null;
  active: boolean;
  value: number;
  threshold: number;
  summary: string;
  forMs: number;
  /** How long a firing alert must find the condition clear before it resolves (0: at once). */
  clearForMs: number;
  /**
   * Whether the samples from `first` on already show the condition over, whatever came before
   * (so an alert taken on need not wait for the rule's whole look-back to resolve).
   */
  overSince?: (first: AlertSample) => boolean;
}

/** What one evaluation changed. */
export interface AlertChanges {
  fired: AlertRecord[];
  resolved: AlertRecord[];
  /** Firing alerts whose value moved (persisted, not announced). */
  updated: AlertRecord[];
}

/**
 * A condition's state. A firing alert taken on carries `takenAt` until its rule has sampled long
 * enough since to judge it; until then it fires on unchanged. A firing alert whose condition is
 * clear but has not been for its rule's `clearForMs` carries `clearSince`, and fires on unchanged.
 */
type State =
  | { kind: "pending"; since: number }
  | { kind: "firing"; alert: AlertRecord; takenAt?: number; clearSince?: number };

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
// Under a minute in seconds: a threshold may be set that low, and "0 min" says nothing.
const dur = (ms: number) =>
  ms >= 3_600_000
    ? `${(ms / 3_600_000).toFixed(1)} h`
    : ms < 59_500
      ? `${Math.round(ms / 1000)} s`
      : `${Math.round(ms / 60_000)} min`;

/** The alert state machine over samples; see the module comment. */
export class AlertRules {
  private samples: AlertSample[] = [];
  private readonly states = new Map<string, State>();
  private firstSampleAt: number | null = null;

  constructor(
    private readonly t: AlertThresholds,
    private readonly newAlertId: (now: number) => string,
  ) {}

  /**
   * Takes on firing alerts: this process's own from before a restart, or those of a worker that
   * left the fleet. One condition keeps one alert: when two meet (this worker's and the one taken
   * on, both judging a condition every worker reads from the database), the one firing longer
   * carries on and the other is resolved as superseded by it. Returns those resolutions.
   *
   * The rules have no samples from before `now`, so an alert taken on for a rule over rates is
   * not judged until they have sampled its whole window since (see LOOKS_BACK): it fires on,
   * unchanged, rather than resolving for want of data. A condition these rules already fire for
   * is judged on their own samples, as before.
   */
  adopt(firing: readonly AlertRecord[], now: number): AlertChanges {
    const changes: AlertChanges = { fired: [], resolved: [], updated: [] };
    for (const alert of [...firing].sort(olderFirst)) {
      if (alert.resolvedAt !== null) continue;
      const key = keyOf(alert.rule, alert.endpointId);
      const held = this.states.get(key);
      if (held?.kind === "firing" && held.alert.id !== alert.id) {
        const [keep, drop] =
          olderFirst(held.alert, alert) <= 0 ? [held.alert, alert] : [alert, held.alert];
        this.states.set(key, { ...held, alert: keep });
        changes.resolved.push({ ...drop, resolvedAt: now, supersededBy: keep.id });
      } else if (held?.kind !== "firing") {
        const waits = this.lookBack(alert.rule) > 0;
        this.states.set(key, { kind: "firing", alert, ...(waits ? { takenAt: now } : {}) });
      }
    }
    return changes;
  }

  /** Lets go of alerts another worker holds now: this one no longer judges them. */
  forget(alertIds: readonly string[]): void {
    const ids = new Set(alertIds);
    for (const [key, state] of this.states) {
      if (state.kind === "firing" && ids.has(state.alert.id)) this.states.delete(key);
    }
  }

  /**
   * The endpoints these rules judge or may judge at the next evaluation: those with attempts or
   * down in the rate window, and those pending or firing. The evaluator asks the store which of
   * them are disabled or deleted (`AlertSample.stopped`).
   */
  endpointsJudged(): Set<string> {
    const ids = new Set<string>();
    for (const s of this.samples) {
      for (const id of s.endpoints.keys()) ids.add(id);
      for (const id of s.down.keys()) ids.add(id);
    }
    for (const key of this.states.keys()) {
      const id = endpointOfKey(key);
      if (id) ids.add(id);
    }
    return ids;
  }

  /** Alerts firing now. */
  firing(): AlertRecord[] {
    const out: AlertRecord[] = [];
    for (const s of this.states.values()) if (s.kind === "firing") out.push(s.alert);
    return out;
  }

  /** Adds a sample and evaluates every rule at its time. */
  evaluate(sample: AlertSample): AlertChanges {
    if (sample.at < (this.samples.at(-1)?.at ?? sample.at)) this.clockWentBack(sample.at);
    this.samples.push(sample);
    this.firstSampleAt ??= sample.at;
    const keep = Math.max(this.t.windowMs, this.t.dlqStuckMs);
    while (this.samples.length > 1 && sample.at - this.samples[1]!.at >= keep) {
      this.samples.shift();
    }
    // Per-endpoint counts are only read within the rate window: drop them sooner, so ten
    // thousand active endpoints cost one window of counts, not an hour of them.
    for (const s of this.samples) {
      if (sample.at - s.at <= this.t.windowMs) continue;
      if (s.endpoints.size) s.endpoints = new Map();
      if (s.down.size) s.down = new Map();
      if (s.stopped.size) s.stopped = new Map();
    }
    const conditions = this.conditions(sample);
    const changes: AlertChanges = { fired: [], resolved: [], updated: [] };
    const seen = new Set<string>();
    for (const c of conditions) {
      seen.add(c.key);
      this.step(c, sample.at, changes);
    }
    // Subjects no longer judged (an endpoint with no traffic in the window) are inactive. An
    // endpoint disabled or deleted is over at once, however its alert came to be held.
    for (const [key, state] of this.states) {
      if (seen.has(key)) continue;
      if (state.kind === "firing") {
        const stopped = state.alert.endpointId ? sample.stopped.get(state.alert.endpointId) : null;
        if (!stopped && !this.canJudge(state, sample.at)) continue;
        const summary = stopped
          ? `${state.alert.summary}; resolved: endpoint ${stopped}`
          : state.alert.summary;
        changes.resolved.push({ ...state.alert, summary, resolvedAt: sample.at });
      }
      this.states.delete(key);
    }
    return changes;
  }

  private step(c: Condition, now: number, changes: AlertChanges): void {
    const state = this.states.get(c.key);
    if (state?.kind === "firing" && state.takenAt !== undefined) {
      if (!this.canJudge(state, now, c.overSince)) return;
      delete state.takenAt;
    }
    if (!c.active) {
      if (state?.kind === "firing") {
        state.clearSince ??= now;
        if (now - state.clearSince < c.clearForMs) return;
        changes.resolved.push({ ...state.alert, resolvedAt: now });
      }
      this.states.delete(c.key);
      return;
    }
    if (state?.kind === "firing") {
      delete state.clearSince;
      if (state.alert.value !== c.value) {
        state.alert = { ...state.alert, value: c.value, summary: c.summary };
        changes.updated.push(state.alert);
      }
      return;
    }
    const since = state?.since ?? now;
    if (now - since < c.forMs) {
      this.states.set(c.key, { kind: "pending", since });
      return;
    }
    const alert: AlertRecord = {
      id: this.newAlertId(now),
      rule: c.rule,
      severity: c.severity,
      summary: c.summary,
      endpointId: c.endpointId,
      value: c.value,
      threshold: c.threshold,
      since,
      resolvedAt: null,
      supersededBy: null,
    };
    this.states.set(c.key, { kind: "firing", alert });
    changes.fired.push(alert);
  }

  /**
   * The clock was set back (NTP, a restored VM): samples and waits stamped after `now` say
   * nothing of how long ago they were, and judged as they stood a rate's window reached back to
   * the oldest of them, and an alert whose condition had ended waited the step's length to
   * resolve. They are let go of: rates are judged from here on, as after a start, and waits
   * begin again now.
   */
  private clockWentBack(now: number): void {
    this.samples = this.samples.filter((s) => s.at <= now);
    if (this.firstSampleAt !== null && this.firstSampleAt > now) this.firstSampleAt = now;
    // A pending condition is over a rate, which the first sample alone finds inactive: it ends.
    for (const state of this.states.values()) {
      if (state.kind !== "firing") continue;
      if (state.clearSince !== undefined) state.clearSince = Math.min(state.clearSince, now);
      if (state.takenAt !== undefined) state.takenAt = Math.min(state.takenAt, now);
    }
  }

  /**
   * Whether a firing alert can be judged at `now`: it was not taken on, or the rules have sampled
   * for its rule's whole look-back since taking it on, or those samples show it over already.
   */
  private canJudge(
    state: { alert: AlertRecord; takenAt?: number },
    now: number,
    overSince?: (first: AlertSample) => boolean,
  ): boolean {
    if (state.takenAt === undefined) return true;
    const takenAt = state.takenAt;
    const first = this.samples.find((s) => s.at >= takenAt);
    if (!first) return false;
    return now - first.at >= this.lookBack(state.alert.rule) || (overSince?.(first) ?? false);
  }

  /** How far back a rule's verdict looks; 0 for a rule these rules no longer have. */
  private lookBack(rule: string): number {
    return LOOKS_BACK[rule as RuleName]?.(this.t) ?? 0;
  }

  /** The sample at or just before `at`, else the oldest kept. */
  private sampleAt(at: number): AlertSample {
    let found = this.samples[0]!;
    for (const s of this.samples) {
      if (s.at <= at) found = s;
      else break;
    }
    return found;
  }

  private conditions(now: AlertSample): Condition[] {
    const t = this.t;
    const out: Condition[] = [];
    const start = this.sampleAt(now.at - t.windowMs);

    // Retry exhaustion rate over the window.
    const ended = now.ended - start.ended;
    const exhausted = now.exhausted - start.exhausted;
    const rate = ended > 0 ? exhausted / ended : 0;
    out.push({
      key: keyOf("retry_exhaustion_rate", null),
      rule: "retry_exhaustion_rate",
      severity: "critical",
      endpointId: null,
      active: ended >= t.exhaustionMinDeliveries && rate > t.exhaustionRate,
      value: rate,
      threshold: t.exhaustionRate,
      summary: `${pct(rate)} of deliveries ended exhausted in the last ${dur(t.windowMs)} (${exhausted} of ${ended})`,
      forMs: t.exhaustionForMs,
      clearForMs: 0,
    });

    // The age of the oldest dead-letter record open or being replayed.
    const dlqAge = now.dlqOldestAt === null ? 0 : now.at - now.dlqOldestAt;
    out.push({
      key: keyOf("dlq_oldest_age", null),
      rule: "dlq_oldest_age",
      severity: "warning",
      endpointId: null,
      active: dlqAge > t.dlqMaxAgeMs,
      value: dlqAge / 1000,
      threshold: t.dlqMaxAgeMs / 1000,
      summary: `the oldest dead-letter record open or being replayed is ${dur(dlqAge)} old`,
      forMs: 0,
      clearForMs: LEVEL_CLEAR_FOR_MS,
    });

    // Nothing leaves the dead-letter queue while its oldest record stays. It moved since `from`
    // if something left (here, or through another process of a fleet), the queue shrank or
    // emptied, or its oldest record changed.
    const dlqMoved = (from: AlertSample) =>
      now.dlqOldestAt === null ||
      now.dlqOldestAt !== from.dlqOldestAt ||
      now.dlqLeft !== from.dlqLeft ||
      now.dlqClosedAt !== from.dlqClosedAt ||
      now.dlqDepth < from.dlqDepth;
    const then = this.sampleAt(now.at - t.dlqStuckMs);
    const stuck = now.at - then.at >= t.dlqStuckMs && then.dlqDepth > 0 && !dlqMoved(then);
    out.push({
      key: keyOf("dlq_stuck", null),
      rule: "dlq_stuck",
      severity: "warning",
      endpointId: null,
      active: stuck,
      value: now.dlqDepth,
      threshold: t.dlqStuckMs / 1000,
      summary: `${now.dlqDepth} dead-letter records and none left the queue for ${dur(t.dlqStuckMs)}`,
      forMs: 0,
      clearForMs: 0,
      overSince: dlqMoved,
    });

    // hookline itself falling behind.
    const lag = now.oldestDueAt === null ? 0 : Math.max(0, now.at - now.oldestDueAt);
    out.push({
      key: keyOf("queue_lag", null),
      rule: "queue_lag",
      severity: "critical",
      endpointId: null,
      active: lag > t.queueLagMs,
      value: lag / 1000,
      threshold: t.queueLagMs / 1000,
      summary: `the oldest due delivery has waited ${dur(lag)} to be sent`,
      forMs: 0,
      clearForMs: LEVEL_CLEAR_FOR_MS,
    });

    // Drills stopped passing.
    const drillAge = now.at - (now.lastDrillPassedAt ?? this.firstSampleAt ?? now.at);
    const drillFailed = now.lastDrill !== null && !now.lastDrill.passed;
    const drillStale = t.drillMaxAgeMs !== null && drillAge > t.drillMaxAgeMs;
    out.push({
      key: keyOf("drill_failing", null),
      rule: "drill_failing",
      severity: "warning",
      endpointId: null,
      active: drillFailed || drillStale,
      value: drillAge / 1000,
      threshold: (t.drillMaxAgeMs ?? 0) / 1000,
      summary: drillFailed
        ? "the last failure drill failed"
        : `no failure drill passed for ${dur(drillAge)}`,
      forMs: 0,
      clearForMs: 0,
    });

    out.push(...this.endpointConditions(now, start.at));
    return out;
  }

  /**
   * One endpoint failing, or down (its circuit not closed), while the others are healthy. A down
   * endpoint is judged without attempts: it stays failing while its circuit stays open, and once
   * the circuit closes it is judged only on the attempts since, so its alert resolves then rather
   * than when the failures that opened the circuit have left the window.
   */
  private endpointConditions(now: AlertSample, from: number): Condition[] {
    const t = this.t;
    const zero = { attempts: 0, successes: 0 };
    const inWindow = this.samples.filter((s) => s.at > from);
    const downUntil = new Map<string, number>();
    // An endpoint disabled or deleted is left out, and its attempts until then are nobody's: not
    // its own once enabled again, nor the others' (whose health they would drag down).
    const stoppedUntil = new Map<string, number>();
    for (const s of inWindow) {
      for (const id of s.down.keys()) downUntil.set(id, s.at);
      for (const id of s.stopped.keys()) stoppedUntil.set(id, s.at);
    }
    // Per endpoint: all its attempts in the window (taken out of the others'), and those since
    // its circuit was last seen not closed (what it is judged on).
    const totals = new Map<string, EndpointCounts>();
    const sinceDown = new Map<string, EndpointCounts>();
    const add = (m: Map<string, EndpointCounts>, id: string, c: EndpointCounts) => {
      const sum = m.get(id) ?? { ...zero };
      sum.attempts += c.attempts;
      sum.successes += c.successes;
      m.set(id, sum);
    };
    let all = { ...zero };
    for (const s of inWindow) {
      for (const [id, c] of s.endpoints) {
        if (s.at <= (stoppedUntil.get(id) ?? -Infinity)) continue;
        add(totals, id, c);
        if (s.at > (downUntil.get(id) ?? -Infinity)) add(sinceDown, id, c);
        all = { attempts: all.attempts + c.attempts, successes: all.successes + c.successes };
      }
    }
    const out: Condition[] = [];
    const seen = new Set([...totals.keys(), ...now.down.keys()]);
    for (const id of now.stopped.keys()) seen.delete(id);
    for (const id of seen) {
      const key = keyOf("endpoint_failing", id);
      const circuit = now.down.get(id);
      const total = totals.get(id) ?? zero;
      const c = circuit ? total : (sinceDown.get(id) ?? zero);
      // Once pending or firing, any traffic keeps judging it: an open circuit sends few probes.
      const judged =
        circuit !== undefined ||
        (this.states.has(key) ? c.attempts > 0 : c.attempts >= t.endpointMinAttempts);
      if (!judged) continue;
      const rate = c.attempts === 0 ? 0 : c.successes / c.attempts;
      const rest = {
        attempts: all.attempts - total.attempts,
        successes: all.successes - total.successes,
      };
      const restRate = rest.attempts === 0 ? 1 : rest.successes / rest.attempts;
      // The others down count too: they make few attempts, and all of them down at once (our
      // network, not their receivers) must not single out each one.
      const othersDown = now.down.size - (circuit ? 1 : 0);
      const othersSeen = seen.size - 1;
      const upShare = othersSeen === 0 ? 1 : (othersSeen - othersDown) / othersSeen;
      const healthy = restRate >= t.healthySuccessRate && upShare >= t.healthySuccessRate;
      const vsOthers = `while the others succeed on ${pct(restRate)}`;
      const tried = c.attempts
        ? `${c.successes} of ${c.attempts} attempts succeeded`
        : "no attempts";
      out.push({
        key,
        rule: "endpoint_failing",
        severity: "warning",
        endpointId: id,
        active: (circuit !== undefined || rate < t.endpointSuccessRate) && healthy,
        value: rate,
        threshold: t.endpointSuccessRate,
        summary: circuit
          ? `endpoint ${id} is down: its circuit is ${circuit} (${tried} in the last ${dur(t.windowMs)}) ${vsOthers}`
          : `endpoint ${id} succeeds on ${pct(rate)} of attempts ${vsOthers}`,
        forMs: t.endpointForMs,
        clearForMs: 0,
      });
    }
    return out;
  }
}

const keyOf = (rule: string, endpointId: string | null) => `${rule}|${endpointId ?? ""}`;
const endpointOfKey = (key: string) => key.slice(key.indexOf("|") + 1) || null;

/** Orders alerts by how long they have fired: earliest `since` first, then by id. */
const olderFirst = (a: AlertRecord, b: AlertRecord) =>
  a.since - b.since || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
