/**
 * Runs the alert rules every few seconds on the injected clock: samples the tally and the
 * store's backlog, evaluates, persists what changed (so a restart remembers firing alerts) and
 * announces alerts that fired or resolved (operational webhooks, logs).
 *
 * Each alert row names the worker that evaluates it, and only that worker writes it. At start
 * and at every evaluation the evaluator takes on firing alerts no running worker evaluates: its
 * own process's from before a restart, or, with several workers, those of a worker that stopped
 * or was declared dead. So an alert is judged, and its end announced, by exactly one worker.
 */
import type { Clock, TimerHandle } from "../clock.js";
import { newId } from "../ids.js";
import type { AlertRecord, Store } from "../store/port.js";
import {
  AlertRules,
  type AlertChanges,
  type AlertSample,
  type AlertThresholds,
} from "./alert-rules.js";
import type { HooklineMetrics } from "./metrics.js";

/**
 * At most this many endpoints down (circuit not closed) are read at each evaluation, the most
 * recently changed first: enough for any real outage, bounded for a store with many endpoints.
 */
const DOWN_READ_LIMIT = 1_000;

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
      /** The worker this evaluator runs in (a fleet worker's id changes when it rejoins). */
      workerId: () => string;
      metrics: HooklineMetrics;
      thresholds: AlertThresholds;
      intervalMs: number;
      logger: EvaluatorLogger;
      /** Whether an endpoint is one of hookline's failure drills' (never judged as failing). */
      isDrillEndpoint: (endpointId: string) => Promise<boolean>;
    },
  ) {
    this.rules = new AlertRules(deps.thresholds, (now) => newId("alrt", now));
  }

  /** Calls `fn` with every evaluation's changes. */
  onChange(fn: (c: AlertChanges) => void): void {
    this.listeners.push(fn);
  }

  async start(): Promise<void> {
    await this.adopt(this.deps.clock.now());
    await this.persist(this.deps.clock.now());
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
      // First, so an alert taken on is judged now rather than fired again beside it.
      await this.adopt(clock.now());
      const backlog = await metrics.refresh();
      const [drill] = await store.listDrillRuns(1);
      const down = await this.downEndpoints();
      const t = metrics.tally;
      const endpoints = t.drainEndpoints();
      const stopped = await this.stoppedEndpoints(endpoints);
      const at = clock.now();
      this.note(
        this.rules.evaluate({
          at,
          ended: t.succeeded + t.exhausted + t.permanent,
          exhausted: t.exhausted,
          dlqLeft: t.dlqLeft,
          endpoints,
          down,
          stopped,
          dlqDepth: backlog.deadLetters,
          dlqOldestAt: backlog.oldestDeadLetterAt,
          dlqClosedAt: backlog.lastDeadLetterClosedAt,
          oldestDueAt: backlog.oldestDueAt,
          lastDrill: drill ? { at: drill.startedAt, passed: drill.passed } : null,
          lastDrillPassedAt: await store.lastPassedDrillAt(),
        }),
      );
      await this.persist(at);
    } catch (err) {
      this.deps.logger.error({ err }, "evaluating alerts failed; trying again at the next tick");
    }
  }

  /**
   * Endpoints whose stored circuit is open or half-open, of those not disabled (each read once per
   * evaluation: few are down at a time). Read from the store, not the engine: on
   * PostgreSQL a worker lets go of an endpoint idle for 10 s, open circuit or not, and another
   * worker's probe may close it. Every worker reads them, so with several workers a down
   * endpoint is listed once per worker, as the other conditions read from the database are.
   */
  private async downEndpoints(): Promise<AlertSample["down"]> {
    const down: AlertSample["down"] = new Map();
    for (const { endpointId, circuit } of await this.deps.store.listUnclosedCircuits(
      DOWN_READ_LIMIT,
    )) {
      // Disabled endpoints are not listed: one is sent nothing, and its circuit stays as it was,
      // but someone chose to stop it. Nor are deleted ones, whose circuit may outlive them (a
      // request in flight as one went).
      if (circuit.state === "closed" || (await this.deps.isDrillEndpoint(endpointId))) continue;
      down.set(endpointId, circuit.state);
    }
    return down;
  }

  /**
   * Which endpoints of those the rules judge, with this sample's, are disabled or deleted: one
   * read of the store per evaluation, so that disabling or deleting a failing endpoint ends its
   * alert now rather than once its attempts have left the window. Read from the store, not the
   * engine: in a fleet the worker evaluating an alert need not be the one that owns (or owned) its
   * endpoint, nor the one whose API changed it.
   */
  private async stoppedEndpoints(
    endpoints: AlertSample["endpoints"],
  ): Promise<AlertSample["stopped"]> {
    const ids = this.rules.endpointsJudged();
    for (const id of endpoints.keys()) ids.add(id);
    return ids.size ? this.deps.store.listStoppedEndpoints([...ids]) : new Map();
  }

  /** Takes on the firing alerts no running worker evaluates (see the module comment). */
  private async adopt(at: number): Promise<void> {
    const taken = await this.deps.store.adoptAlerts(this.deps.workerId());
    if (!taken.length) return;
    this.deps.logger.info(
      { alertIds: taken.map((a) => a.id) },
      "evaluating firing alerts that no running worker evaluated",
    );
    this.note(this.rules.adopt(taken, at));
  }

  /** Queues what the rules changed to be stored, then announced. */
  private note(changes: AlertChanges): void {
    for (const a of [...changes.fired, ...changes.resolved, ...changes.updated]) {
      this.unsaved.set(a.id, a);
    }
    this.unannounced.fired.push(...changes.fired);
    this.unannounced.resolved.push(...changes.resolved);
  }

  /** Stores what changed and forgets alerts resolved too long ago, then announces. */
  private async persist(at: number): Promise<void> {
    // Saved at every evaluation, with nothing changed too: the forgetting rides on the save, and
    // a quiet day would otherwise keep a resolved alert until the next one fired or resolved.
    const refused = await this.deps.store.saveAlerts({
      holder: this.deps.workerId(),
      alerts: [...this.unsaved.values()],
      forgetResolvedBefore: at - RESOLVED_LISTED_MS,
    });
    this.unsaved.clear();
    if (refused.length) this.letGo(refused);
    // Announced only once stored, so a listing never lags behind an announcement.
    const told = this.unannounced;
    this.unannounced = { fired: [], resolved: [], updated: [] };
    for (const a of told.fired) this.deps.logger.warn(logged(a), `alert firing: ${a.summary}`);
    for (const a of told.resolved) this.deps.logger.info(logged(a), "alert resolved");
    if (told.fired.length || told.resolved.length) {
      for (const fn of this.listeners) fn(told);
    }
  }

  /**
   * Alerts another worker took on while this one was declared dead (a long pause): that worker
   * judges and announces them now, so this one forgets them and says nothing.
   */
  private letGo(alertIds: string[]): void {
    this.deps.logger.warn(
      { alertIds },
      "another worker evaluates these alerts now (this one was declared dead); letting go",
    );
    this.rules.forget(alertIds);
    const ours = (a: AlertRecord) => !alertIds.includes(a.id);
    this.unannounced.fired = this.unannounced.fired.filter(ours);
    this.unannounced.resolved = this.unannounced.resolved.filter(ours);
  }
}

const logged = (a: AlertRecord) => ({
  alertId: a.id,
  rule: a.rule,
  endpointId: a.endpointId,
  value: a.value,
  threshold: a.threshold,
  ...(a.supersededBy ? { supersededBy: a.supersededBy } : {}),
});
