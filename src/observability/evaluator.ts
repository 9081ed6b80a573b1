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
  // What the rules changed but the store has not yet taken (by alert id, latest version), and
  // what is still to be announced: the rules move on at once, so a save that fails must be
  // tried again, or an alert that fired on that tick would never be stored nor announced.
  private readonly unsaved = new Map<string, AlertRecord>();
  private unannounced: AlertChanges = { fired: [], resolved: [], updated: [] };

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
      for (const a of [...changes.fired, ...changes.resolved, ...changes.updated]) {
        this.unsaved.set(a.id, a);
      }
      this.unannounced.fired.push(...changes.fired);
      this.unannounced.resolved.push(...changes.resolved);
      if (this.unsaved.size) {
        await store.saveAlerts([...this.unsaved.values()], at - RESOLVED_LISTED_MS);
        this.unsaved.clear();
      }
      // Announced only once stored, so a listing never lags behind an announcement.
      const told = this.unannounced;
      this.unannounced = { fired: [], resolved: [], updated: [] };
      for (const a of told.fired) this.deps.logger.warn(logged(a), `alert firing: ${a.summary}`);
      for (const a of told.resolved) this.deps.logger.info(logged(a), "alert resolved");
      if (told.fired.length || told.resolved.length) {
        for (const fn of this.listeners) fn(told);
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
