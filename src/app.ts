/**
 * Assembles one hookline process from a resolved configuration: the store, the delivery engine,
 * the dead-letter queue's background jobs (replay jobs, retention) and the HTTP API, started and
 * stopped in the right order.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { pino, type Logger } from "pino";
import { buildApi } from "./api/server.js";
import { systemClock, type Clock, type Random } from "./clock.js";
import type { Config } from "./config.js";
import { RetentionPruner, type RetentionSettings } from "./dlq/retention.js";
import { ReplayJobRunner } from "./dlq/runner.js";
import { DeadLetterQueue } from "./dlq/service.js";
import { DEFAULT_ADAPTIVE, type AdaptiveSettings } from "./engine/adaptive-limit.js";
import { DEFAULT_BREAKER, type BreakerSettings } from "./engine/breaker.js";
import { DeliveryEngine } from "./engine/engine.js";
import { EngineEvents } from "./engine/events.js";
import { ExemptTargets } from "./engine/guarded-connect.js";
import type { PolicyDefaults } from "./engine/policy.js";
import { HttpSender, type Sender } from "./engine/sender.js";
import { Observability } from "./observability/service.js";
import type { Store } from "./store/port.js";
import { openStore } from "./store/factory.js";

/** Things a test (or an embedding program) may swap; production uses the defaults. */
export interface HooklineOverrides {
  clock?: Clock;
  random?: Random;
  sender?: Sender;
  logger?: Logger;
  breaker?: Partial<BreakerSettings>;
  adaptive?: Partial<AdaptiveSettings>;
  /** Timing of the retention job (tests run it on a fake clock). */
  retention?: Partial<Omit<RetentionSettings, "retentionMs">>;
}

/** A running (or ready to run) hookline process. */
export interface Hookline {
  readonly config: Readonly<Config>;
  readonly store: Store;
  readonly engine: DeliveryEngine;
  readonly dlq: DeadLetterQueue;
  readonly replayJobs: ReplayJobRunner;
  readonly retention: RetentionPruner;
  /** Metrics, alerts, operational webhooks, failure drills. */
  readonly observability: Observability;
  readonly api: FastifyInstance;
  readonly adminToken: string;
  readonly logger: Logger;
  /** Base URL the API listens on, once started. */
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Builds hookline from configuration; nothing listens or delivers until start(). */
export function createHookline(
  config: Readonly<Config>,
  overrides: HooklineOverrides = {},
): Hookline {
  const logger =
    overrides.logger ?? pino({ level: config.logLevel, base: { service: "hookline" } });
  const clock = overrides.clock ?? systemClock;
  const adminToken = config.adminToken ?? loadOrCreateAdminToken(config.dataDir);
  const store = openStore(config);
  // One bus for domain events: the engine's and the dead-letter queue's.
  const events = new EngineEvents();
  const policyDefaults: PolicyDefaults = {
    retry: { preset: "default" },
    concurrencyLimit: config.defaultConcurrency,
    timeoutMs: config.requestTimeoutMs,
  };
  // hookline's own loopback servers (the drill's receiver) are let through the SSRF guard.
  const exempt = new ExemptTargets();
  const sender =
    overrides.sender ??
    new HttpSender({ refusePrivateTargets: !config.allowPrivateTargets, exemptTargets: exempt });
  const engine = new DeliveryEngine({
    store,
    sender,
    clock,
    random: overrides.random ?? Math.random,
    logger,
    events,
    settings: {
      policyDefaults,
      breaker: { ...DEFAULT_BREAKER, ...overrides.breaker },
      adaptive: { ...DEFAULT_ADAPTIVE, ...overrides.adaptive },
      batchSize: 256,
      maxClaimed: 4096,
      leaseMs: 5 * 60_000,
      shutdownTimeoutMs: config.shutdownTimeoutMs,
    },
  });
  const replayJobs = new ReplayJobRunner({
    store,
    engine,
    events,
    clock,
    settings: { maxReplays: config.dlqMaxReplays },
    logger,
  });
  const dlq = new DeadLetterQueue({
    store,
    engine,
    events,
    clock,
    policyDefaults,
    jobs: replayJobs,
    settings: {
      maxReplays: config.dlqMaxReplays,
      replayRate: config.dlqReplayRate,
      canarySize: config.dlqCanarySize,
      canaryThreshold: config.dlqCanaryThreshold,
    },
  });
  const retention = new RetentionPruner(
    store,
    clock,
    { retentionMs: config.retentionMs, ...overrides.retention },
    logger,
  );
  // Nothing leaves the dead-letter queue unnoticed: the depth cap and abandonment are logged.
  events.on((e) => {
    if (e.type !== "dead-letter") return;
    const { kind, ...change } = e.change;
    if (kind === "overflowed") logger.warn(change, "dead letter not kept: depth cap reached");
    if (kind === "abandoned") logger.warn(change, "dead-letter record abandoned");
  });
  const observability = new Observability({
    store,
    engine,
    events,
    dlq,
    clock,
    config,
    logger,
    exempt,
  });
  const api = buildApi({
    store,
    engine,
    dlq,
    config,
    clock,
    adminToken,
    policyDefaults,
    observability,
  });

  const hookline: Hookline = {
    config,
    store,
    engine,
    dlq,
    replayJobs,
    retention,
    observability,
    api,
    adminToken,
    logger,
    url: "",
    async start() {
      await engine.start();
      await replayJobs.start();
      retention.start();
      await observability.start();
      const address = await api.listen({ host: config.host, port: config.port });
      hookline.url = config.publicUrl ?? address;
    },
    async stop() {
      // Stop taking messages first, then the background jobs, then let deliveries in flight
      // finish, then close the store.
      await api.close();
      await observability.stop();
      await replayJobs.stop();
      await retention.stop();
      await engine.stop();
      await sender.close();
      await store.close();
    },
  };
  return hookline;
}

/** The admin token kept in the data dir, created (0600) on first start. */
export function loadOrCreateAdminToken(dataDir: string): string {
  const file = join(dataDir, "admin-token");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dataDir, { recursive: true });
  const token = `hl_admin_${randomBytes(24).toString("base64url")}`;
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: "wx" });
  chmodSync(file, 0o600);
  return token;
}
