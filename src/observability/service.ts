/**
 * hookline's observability, assembled: metrics, the alert evaluator, operational webhooks,
 * failure drills, delivery logs and the readiness check. The API reads it through
 * {@link Observability}; app.ts starts it after the engine and stops it before.
 */
import type { Logger } from "pino";
import type { Clock } from "../clock.js";
import type { Config } from "../config.js";
import type { DeadLetterQueue } from "../dlq/service.js";
import type { EndpointPinning, EngineControl } from "../engine/control.js";
import type { EngineEvents } from "../engine/events.js";
import type { ExemptTargets } from "../engine/guarded-connect.js";
import { StoreUnavailableError } from "../errors.js";
import { finishedWithin, PROBE_WAIT_MS } from "../finished-within.js";
import type { Store } from "../store/port.js";
import { DEFAULT_THRESHOLDS, type AlertThresholds } from "./alert-rules.js";
import { alertViews, type AlertView } from "./alert-view.js";
import { logDeliveries } from "./delivery-log.js";
import { DrillRunner } from "./drill.js";
import { AlertEvaluator, RESOLVED_LISTED_MS } from "./evaluator.js";
import { HooklineMetrics } from "./metrics.js";
import { OperationalWebhooks } from "./operational-webhooks.js";
import { SystemEndpoints } from "./system-apps.js";

/** The dashboard's system view (GET /api/v1/stats). */
export interface SystemStats {
  queueDepth: number;
  oldestDueAgeMs: number;
  dlqOpen: number;
  dlqOldestAgeMs: number;
  deliveredLastMinute: number;
  failedLastMinute: number;
}

export interface ObservabilityDeps {
  store: Store;
  engine: EngineControl;
  /** This process's engine, where it delivers (drills keep their endpoint with it). */
  pinning: EndpointPinning | null;
  events: EngineEvents;
  dlq: DeadLetterQueue;
  clock: Clock;
  config: Readonly<Config>;
  logger: Logger;
  exempt: ExemptTargets;
  /** This process's worker id (the fleet's, which changes when a worker rejoins). */
  workerId: () => string;
}

/** The thresholds configured, over the defaults. */
export function thresholdsOf(config: Readonly<Config>): AlertThresholds {
  return {
    ...DEFAULT_THRESHOLDS,
    ...config.alerts,
    // With scheduled drills, two missed runs (plus a margin) is a drill that stopped passing.
    drillMaxAgeMs: config.drillIntervalMs > 0 ? 2 * config.drillIntervalMs + 10 * 60_000 : null,
  };
}

/** See the module comment. */
export class Observability {
  readonly metrics: HooklineMetrics;
  readonly evaluator: AlertEvaluator;
  readonly operational: OperationalWebhooks;
  readonly drills: DrillRunner;
  readonly system: SystemEndpoints;

  constructor(private readonly deps: ObservabilityDeps) {
    const { store, engine, events, clock, config, logger } = deps;
    this.metrics = new HooklineMetrics({
      store,
      engine,
      events,
      clock,
      settings: { maxEndpoints: config.metricsMaxEndpoints, slotIdleMs: 10 * 60_000 },
    });
    this.system = new SystemEndpoints(store);
    const system = this.system;
    this.evaluator = new AlertEvaluator({
      store,
      clock,
      workerId: deps.workerId,
      metrics: this.metrics,
      thresholds: thresholdsOf(config),
      intervalMs: config.alertIntervalMs,
      logger,
      isDrillEndpoint: (id) => system.isDrill(id),
    });
    this.operational = new OperationalWebhooks({
      store,
      engine,
      events,
      clock,
      system: this.system,
      failingAfter: config.opWebhookFailingAfter,
      logger,
    });
    this.evaluator.onChange((c) => this.operational.alertsChanged(c));
    this.drills = new DrillRunner({
      store,
      engine,
      pinning: deps.pinning,
      events,
      dlq: deps.dlq,
      clock,
      metrics: this.metrics,
      exempt: deps.exempt,
      settings: { intervalMs: config.drillIntervalMs, stepTimeoutMs: config.drillStepTimeoutMs },
      logger,
      onPrepared: () => this.system.reset(),
    });
    logDeliveries(events, logger);
  }

  /**
   * Starts the alert evaluator and the drill schedule, in processes that deliver (`evaluate`):
   * an API-only process sees no deliveries to count. With several workers each evaluates the
   * deliveries it made itself (docs/observability.md, "Several processes").
   */
  async start(options: { evaluate: boolean } = { evaluate: true }): Promise<void> {
    if (!options.evaluate) return;
    await this.metrics.showStoredCircuits();
    await this.evaluator.start();
    this.drills.start();
  }

  async stop(): Promise<void> {
    await this.drills.stop();
    await this.evaluator.stop();
    await this.operational.idle();
  }

  /**
   * Resolves once the operational webhooks of every event so far are written. The engine stops
   * after this service and its last deliveries' events come then: app.ts waits for this once
   * the engine has stopped, before the store closes under their writes.
   */
  announced(): Promise<void> {
    return this.operational.idle();
  }

  /** Firing alerts and those resolved in the last 24 hours, newest first. */
  async alerts(): Promise<{ firing: AlertView[]; resolved: AlertView[] }> {
    const now = this.deps.clock.now();
    const all = await this.deps.store.listAlerts({ resolvedSince: now - RESOLVED_LISTED_MS });
    const resolved = all
      .filter((a) => a.resolvedAt !== null)
      .sort((a, b) => b.resolvedAt! - a.resolvedAt!);
    return {
      firing: await alertViews(
        this.deps.store,
        all.filter((a) => a.resolvedAt === null),
      ),
      resolved: await alertViews(this.deps.store, resolved),
    };
  }

  /** The dashboard's system numbers. */
  async stats(): Promise<SystemStats> {
    const now = this.deps.clock.now();
    const b = await this.metrics.refresh();
    const minute = this.metrics.tally.lastMinute(now);
    return {
      queueDepth: b.pending,
      oldestDueAgeMs: b.oldestDueAt === null ? 0 : Math.max(0, now - b.oldestDueAt),
      dlqOpen: b.deadLetters,
      dlqOldestAgeMs: b.oldestDeadLetterAt === null ? 0 : Math.max(0, now - b.oldestDeadLetterAt),
      deliveredLastMinute: minute.succeeded,
      failedLastMinute: minute.failed,
    };
  }

  /** Whether this process can serve; see {@link checkReady}. */
  ready(): Promise<{ ready: boolean; store: string }> {
    return checkReady(this.deps.store);
  }
}

/** Whether a process can serve: its store answers within two seconds. */
export async function checkReady(store: Store): Promise<{ ready: boolean; store: string }> {
  try {
    await pingWithin(store);
    return { ready: true, store: "ok" };
  } catch (err) {
    return { ready: false, store: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * Resolves once the store answers a ping, or rejects with StoreUnavailableError when it fails or
 * has not answered within two seconds: a silent database holds a query for the whole query
 * timeout, and a probe that hangs that long tells an orchestrator nothing.
 */
export async function pingWithin(store: Store): Promise<void> {
  if (!(await finishedWithin(PROBE_WAIT_MS, sharedPing(store)))) {
    throw new StoreUnavailableError(`no answer within ${PROBE_WAIT_MS / 1000} seconds`);
  }
}

/** Pings under way, per store. */
const pinging = new WeakMap<Store, Promise<void>>();

/**
 * The store's ping under way, or a new one. A silent database holds each ping for the query
 * timeout, long after its probe gave up: probes starting pings of their own every few seconds
 * would queue them for the pool's connections, which the API's requests wait for too.
 */
function sharedPing(store: Store): Promise<void> {
  let ping = pinging.get(store);
  if (!ping) {
    ping = store.ping().finally(() => pinging.delete(store));
    pinging.set(store, ping);
  }
  return ping;
}
