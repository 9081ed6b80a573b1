/**
 * Runs the alert rules every few seconds on the injected clock: samples the tally and the
 * store's backlog, evaluates, persists what changed (so a restart remembers firing alerts) and
 * announces alerts that fired or resolved (operational webhooks, logs).
 */
import type { Clock, TimerHandle } from "../clock.js";
import { newId } from "../ids.js";
import type { AlertRecord, Store } from "../store/port.js";
import { AlertRules, type AlertChanges, type AlertThresholds } from "./alert-rules.js";
import type { HooklineMetrics } from "./metrics.js";

/** How long resolved alerts are listed by GET /api/v1/alerts. */
export const RESOLVED_LISTED_MS = 24 * 3_600_000;

export interface EvaluatorLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** The periodic alert evaluator; see the module comment. */
export class AlertEvaluator {
  readonly rules: AlertRules;
  private timer: TimerHandle | null = null;
  private running = false;
  private ticking: Promise<void> = Promise.resolve();
  private readonly listeners: ((c: AlertChanges) => void)[] = [];

  constructor(
    private readonly deps: {
      store: Store;
      clock: Clock;
      metrics: HooklineMetrics;
      thresholds: AlertThresholds;
      intervalMs: number;
      logger: EvaluatorLogger;
    },
  ) {
    this.rules = new AlertRules(deps.thresholds, (now) => newId("alrt", now));
  }

  /** Calls `fn` with every evaluation's changes. */
  onChange(fn: (c: AlertChanges) => void): void {
    this.listeners.push(fn);
  }

  async start(): Promise<void> {
    const now = this.deps.clock.now();
    const known = await this.deps.store.listAlerts({ resolvedSince: now });
    this.rules.restore(known.filter((a) => a.resolvedAt === null));
    this.deps.metrics.setLastDrillSuccess(await this.deps.store.lastPassedDrillAt());
    this.running = true;
    this.arm();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) this.deps.clock.clearTimer(this.timer);
    this.timer = null;
    await this.ticking;
  }

  /** Evaluates now (the timer calls this; tests may too). */
  tick(): Promise<void> {
    this.ticking = this.ticking.then(() => this.evaluate());
    return this.ticking;
  }

  private arm(): void {
    if (!this.running) return;
    this.timer = this.deps.clock.setTimer(() => {
      this.timer = null;
      void this.tick().finally(() => this.arm());
    }, this.deps.intervalMs);
  }

  private async evaluate(): Promise<void> {
    const { store, clock, metrics } = this.deps;
    try {
      const backlog = await metrics.refresh();
      const [drill] = await store.listDrillRuns(1);
      const t = metrics.tally;
      const at = clock.now();
      const changes = this.rules.evaluate({
        at,
        ended: t.succeeded + t.exhausted + t.permanent,
        exhausted: t.exhausted,
        dlqLeft: t.dlqLeft,
        endpoints: t.drainEndpoints(),
        dlqDepth: backlog.deadLetters,
        dlqOldestAt: backlog.oldestDeadLetterAt,
        oldestDueAt: backlog.oldestDueAt,
        lastDrill: drill ? { at: drill.startedAt, passed: drill.passed } : null,
        lastDrillPassedAt: await store.lastPassedDrillAt(),
      });
      const touched: AlertRecord[] = [...changes.fired, ...changes.resolved, ...changes.updated];
      if (touched.length) await store.saveAlerts(touched, at - RESOLVED_LISTED_MS);
      for (const a of changes.fired) this.deps.logger.warn(logged(a), `alert firing: ${a.summary}`);
      for (const a of changes.resolved) this.deps.logger.info(logged(a), "alert resolved");
      if (changes.fired.length || changes.resolved.length) {
        for (const fn of this.listeners) fn(changes);
      }
    } catch (err) {
      this.deps.logger.error({ err }, "evaluating alerts failed; trying again at the next tick");
    }
  }
}

const logged = (a: AlertRecord) => ({
  alertId: a.id,
  rule: a.rule,
  endpointId: a.endpointId,
  value: a.value,
  threshold: a.threshold,
});
