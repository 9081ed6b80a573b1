/**
 * Assembles one hookline process from a resolved configuration: the store, the delivery engine,
 * the dead-letter queue's background jobs (replay jobs, retention) and the HTTP API, started and
 * stopped in the right order.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { pino, type DestinationStream, type Logger } from "pino";
import { bootstrapTokenRevokedAt } from "./api/auth.js";
import { watchArrivingRequests } from "./api/arriving-requests.js";
import { buildApi } from "./api/server.js";
import { systemClock, type Clock, type Random } from "./clock.js";
import { ADMIN_TOKEN_RULE, isUsableAdminToken, type Config } from "./config.js";
import { ConfigError } from "./errors.js";
import { lockDataDir, type DataDirLock } from "./data-dir-lock.js";
import { exposedFiles } from "./exposed-files.js";
import { finishedWithin } from "./finished-within.js";
import { makeDirectory } from "./make-directory.js";
import { StopDeadline } from "./stop-deadline.js";
import { RetentionPruner, type RetentionSettings } from "./dlq/retention.js";
import { ReplayJobRunner } from "./dlq/runner.js";
import { DeadLetterQueue } from "./dlq/service.js";
import { DEFAULT_ADAPTIVE, type AdaptiveSettings } from "./engine/adaptive-limit.js";
import { DEFAULT_BREAKER, type BreakerSettings } from "./engine/breaker.js";
import { DeliveryEngine } from "./engine/engine.js";
import { EngineEvents } from "./engine/events.js";
import { ExemptTargets } from "./engine/guarded-connect.js";
import type { PolicyDefaults } from "./engine/policy.js";
import { HttpSender, withoutRedirectTarget, type Sender } from "./engine/sender.js";
import { ThreadedSender } from "./engine/sender-threads.js";
import { SignallingControl } from "./engine/signalling.js";
import { newId } from "./ids.js";
import { Observability } from "./observability/service.js";
import type { Store } from "./store/port.js";
import { openStore } from "./store/factory.js";
import { dataDirFailure, listenFailure, storeFailure } from "./start-failure.js";
import { tryListening } from "./listen-check.js";

/** Things a test (or an embedding program) may swap; production uses the defaults. */
export interface HooklineOverrides {
  clock?: Clock;
  random?: Random;
  sender?: Sender;
  logger?: Logger;
  /** Where the default logger writes its lines (stdout if unset). */
  logDestination?: DestinationStream;
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
  /** The bootstrap admin token; null in a worker started without HOOKLINE_ADMIN_TOKEN. */
  readonly adminToken: string | null;
  /** Once started: when that token was revoked (it is then refused), or null. */
  adminTokenRevokedAt: number | null;
  /** Once started: files of the data dir other users can read, each as a warning. */
  exposedFiles: string[];
  readonly logger: Logger;
  /** Base URL to reach the API at (the public URL if set), once started. */
  url: string;
  /** The address and port the API is bound to, once started. */
  listening: BoundAddress | null;
  /**
   * Set as start() has checked the store (on PostgreSQL, migrated it: a wait on another process's
   * migration is the one start-up wait with no bound). From then on start takes work (deliveries,
   * jobs, requests) that a stop should let finish and hand back.
   */
  storeReady: boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Builds hookline from configuration; nothing listens or delivers until start(). */
export function createHookline(
  config: Readonly<Config>,
  overrides: HooklineOverrides = {},
): Hookline {
  const logger =
    overrides.logger ??
    pino(
      { level: config.logLevel, base: { service: "hookline" }, redact: REDACTED_LOG_PATHS },
      overrides.logDestination,
    );
  const clock = overrides.clock ?? systemClock;
  // On SQLite, held from here to stop (see data-dir-lock.ts).
  const opened = openDataDir(config, logger);
  const { adminToken, store } = opened;
  let dataDirLock: DataDirLock | null = opened.lock;
  // One bus for domain events: the engine's and the dead-letter queue's.
  const events = new EngineEvents();
  const policyDefaults: PolicyDefaults = {
    retry: { preset: "default" },
    concurrencyLimit: config.defaultConcurrency,
    timeoutMs: config.requestTimeoutMs,
  };
  // hookline's own loopback servers (the drill's receiver) are let through the SSRF guard.
  const exempt = new ExemptTargets();
  const delivers = config.role !== "api";
  const senderOptions = {
    refusePrivateTargets: !config.allowPrivateTargets,
    exemptTargets: exempt,
  };
  const sender =
    overrides.sender ??
    (delivers && config.senderThreads > 0
      ? new ThreadedSender({
          threads: config.senderThreads,
          ...senderOptions,
          log: logger,
          onPriorityRefused: (niceness) =>
            logger.info(
              { niceness },
              "the sender thread could not take back the main thread's priority after API " +
                "callers went (Linux allows it with CAP_SYS_NICE or a nice limit, RLIMIT_NICE); " +
                "it stays lowered, and delivery without callers is slower than it could be",
            ),
        })
      : new HttpSender(senderOptions));
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
      fleet: {
        heartbeatMs: config.workerHeartbeatMs,
        deadAfterMs: config.workerDeadAfterMs,
        idleReleaseMs: 10_000,
        role: config.role,
        host: hostname(),
      },
    },
  });
  // What the API and the DLQ tell "the engine": this process's, if it delivers, and through the
  // store's signals every other process sharing the database.
  const processId = newId("wkr");
  const workerId = () => engine.fleet?.id ?? processId;
  const control = new SignallingControl(
    delivers ? engine : null,
    store.coordination,
    workerId,
    logger,
  );
  const replayJobs = new ReplayJobRunner({
    store,
    engine: control,
    events,
    clock,
    settings: {
      maxReplays: config.dlqMaxReplays,
      takeOverOnStart: !store.coordination,
      // Jobs made by another process (an API-only one) or left by a stopped one wake nobody here.
      sharedPollMs: store.coordination ? 5_000 : undefined,
    },
    logger,
  });
  const dlq = new DeadLetterQueue({
    store,
    engine: control,
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
    const { kind, ...rest } = e.change;
    // The detail may end in the last attempt's redirect, whose target is most often the URL.
    const change = { ...rest, detail: withoutRedirectTarget(rest.detail) };
    if (kind === "overflowed") logger.warn(change, "dead letter not kept: depth cap reached");
    if (kind === "abandoned") logger.warn(change, "dead-letter record abandoned");
  });
  const observability = new Observability({
    store,
    engine: control,
    pinning: delivers ? engine : null,
    events,
    dlq,
    clock,
    config,
    logger,
    exempt,
    workerId,
  });
  const api = buildApi({
    store,
    engine: control,
    dlq,
    config,
    clock,
    adminToken,
    policyDefaults,
    observability,
    events,
    logger,
  });
  const arriving = watchArrivingRequests(api.server);

  /**
   * Stops the API: no new connections, and the requests it is answering are answered. A request
   * still arriving once the stop's deadline has passed (a client that stopped sending half-way)
   * is not waited for: its connection is closed.
   */
  async function closeApi(deadline: StopDeadline): Promise<void> {
    const closed = api.close();
    if (await finishedWithin(deadline.leftMs(), closed)) return;
    const connections = arriving.cut();
    if (connections > 0) {
      logger.warn(
        { connections, shutdownTimeoutMs: config.shutdownTimeoutMs },
        "stopping without the API requests that had not fully arrived after the shutdown timeout (HOOKLINE_SHUTDOWN_TIMEOUT_MS): their connections are closed",
      );
    }
    await closed;
  }

  /** Starts the parts in order; the API listens last, once deliveries are running. */
  async function startParts(): Promise<void> {
    // A wrong key stops start-up here rather than failing deliveries one by one later.
    await store.verifySealing();
    if (!config.encryptionKey) {
      logger.warn(
        "ENCRYPTION AT REST IS OFF: endpoint secrets and message payloads are stored in plaintext; set HOOKLINE_ENCRYPTION_KEY or HOOKLINE_ENCRYPTION_KEY_FILE (see docs/security.md)",
      );
    }
    hookline.exposedFiles = exposedFiles(config.dataDir, !config.databaseUrl);
    for (const w of hookline.exposedFiles) logger.warn(w);
    hookline.storeReady = true;
    await tryListening(config.host, config.port).catch((err: unknown) => {
      throw listenFailure(err, config);
    });
    if (delivers) {
      if (sender instanceof ThreadedSender) await sender.started();
      await engine.start();
      await replayJobs.start();
      retention.start();
    }
    // Metrics and operational webhooks in every process; alerts and scheduled drills only
    // where deliveries are made (see observability/service.ts).
    await observability.start({ evaluate: delivers });
    // A worker listens too, for its probes and metrics only (see api/server.ts).
    const address = await api
      .listen({ host: config.host, port: config.port })
      .catch((err: unknown) => {
        throw listenFailure(err, config);
      });
    hookline.listening = boundTo(api);
    // Registered as the API got ready. A revoked one is refused: the banner would otherwise
    // show a token that answers 401, with nothing to say why.
    if (adminToken !== null) {
      const revokedAt = await bootstrapTokenRevokedAt(store, adminToken);
      hookline.adminTokenRevokedAt = revokedAt;
      if (revokedAt !== null) {
        logger.warn(
          { revokedAt: new Date(revokedAt).toISOString() },
          revokedAdminToken(config, revokedAt),
        );
      }
    }
    const local = hookline.listening.everyInterface ? hookline.listening.localUrl : address;
    // The public URL is the API's (a load balancer's); a worker is probed and scraped where it is.
    hookline.url = config.role === "worker" ? local : (config.publicUrl ?? local);
  }

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
    adminTokenRevokedAt: null,
    exposedFiles: [],
    logger,
    url: "",
    listening: null,
    storeReady: false,
    async start() {
      try {
        await startParts();
      } catch (err) {
        // Whatever did start is stopped again, so an embedding program is left with nothing running.
        await hookline.stop().catch(() => undefined);
        // A store that fails in any part's start is named by its setting.
        throw storeFailure(err, config);
      }
    },
    async stop() {
      // Stop taking messages first, then the background jobs, then let deliveries in flight
      // finish and write the operational webhooks they call for, then close the store. A step
      // that fails (the store away: the worker cannot say it leaves) still lets the sender and
      // the store close, so nothing is left open. The API's requests and the deliveries in
      // flight share one shutdown timeout (stop-deadline.ts).
      const deadline = new StopDeadline(config.shutdownTimeoutMs);
      try {
        await closeApi(deadline);
        await observability.stop();
        if (delivers) {
          await replayJobs.stop();
          await retention.stop();
          await engine.stop(deadline);
          // A delivery that ended during that stop may be an operational event (given up, a
          // circuit opened): its message is written before the store closes, sent after restart.
          await observability.announced();
        }
      } finally {
        try {
          await sender.close();
          await store.close();
        } finally {
          // Last: another hookline may take the data dir once this one writes no more.
          dataDirLock?.release();
          dataDirLock = null;
        }
      }
    },
  };
  return hookline;
}

/** What to do about a configured or generated admin token that was revoked. */
export function revokedAdminToken(config: Readonly<Config>, revokedAt: number): string {
  const when = new Date(revokedAt).toISOString();
  return config.adminToken
    ? `HOOKLINE_ADMIN_TOKEN was revoked at ${when} and is refused: set a new value and restart, or use another admin token`
    : `the admin token in ${join(config.dataDir, "admin-token")} was revoked at ${when} and is refused: delete that file and restart to have a new one generated, or use another admin token`;
}

/** Where the API is bound. */
export interface BoundAddress {
  address: string;
  port: number;
  /** Bound to 0.0.0.0 or ::, so open on every interface of the machine. */
  everyInterface: boolean;
  /** A URL that reaches it from this machine (loopback, on every interface). */
  localUrl: string;
}

/**
 * On every interface the server reports the loopback URL for 0.0.0.0, and [::] for :: (not a URL
 * every client can open): the local URL is then loopback's, of the family bound.
 */
function boundTo(api: FastifyInstance): BoundAddress {
  const { address, family, port } = api.server.address() as AddressInfo;
  const v6 = family === "IPv6";
  const everyInterface = address === "0.0.0.0" || address === "::";
  const host = everyInterface ? (v6 ? "[::1]" : "127.0.0.1") : v6 ? `[${address}]` : address;
  return { address, port, everyInterface, localUrl: `http://${host}:${port}` };
}

/**
 * Log fields that may carry credentials, among a line's own fields and one level down; pino
 * writes "[Redacted]" instead.
 */
export const REDACTED_LOG_PATHS = [
  "secret",
  "*.secret",
  "secrets",
  "*.secrets",
  "headers.authorization",
  "*.headers.authorization",
  "headers.cookie",
  "*.headers.cookie",
  "encryptionKey",
  "*.encryptionKey",
  "encryptionOldKeys",
  "*.encryptionOldKeys",
];

/**
 * The admin token and the store; a data dir that cannot be used for either stops start-up naming
 * HOOKLINE_DATA_DIR. (With DATABASE_URL it holds only the generated token.) A worker serves no
 * API and prints no token, so it makes none: one it generated would be an admin credential in the
 * shared database that nobody was shown. Its /metrics takes the tokens the database has.
 *
 * On SQLite the data dir is locked before the store is opened: opening migrates it, and a new
 * version started beside an old one still running (an upgrade without stopping it first) would
 * otherwise migrate the running one's database, then stop on the lock, leaving both on a schema
 * the old one does not know.
 */
function openDataDir(
  config: Readonly<Config>,
  logger: Logger,
): { adminToken: string | null; store: Store; lock: DataDirLock | null } {
  let adminToken: string | null;
  let lock: DataDirLock | null = null;
  try {
    adminToken =
      config.adminToken ??
      (config.role === "worker" ? null : loadOrCreateAdminToken(config.dataDir));
    if (!config.databaseUrl) {
      makeDirectory(config.dataDir, 0o700);
      lock = lockDataDir(config.dataDir);
    }
  } catch (err) {
    throw dataDirFailure(err, config.dataDir);
  }
  try {
    return { adminToken, store: openStore(config, logger), lock };
  } catch (err) {
    lock?.release();
    throw err;
  }
}

/** The admin token kept in the data dir, created (0600, in a 0700 dir if it makes it) on first start. */
export function loadOrCreateAdminToken(dataDir: string): string {
  const file = join(dataDir, "admin-token");
  if (existsSync(file)) {
    // Docker makes a directory where a file that did not exist on the host is mounted.
    if (statSync(file).isDirectory()) {
      throw new ConfigError(
        `${file} must hold the admin token, but it is a directory (a mount of a file that did not exist makes one): remove it to have a new token generated, or set HOOKLINE_ADMIN_TOKEN`,
      );
    }
    const kept = readFileSync(file, "utf8").trim();
    if (!isUsableAdminToken(kept)) {
      throw new ConfigError(
        `${file} must hold the admin token, ${ADMIN_TOKEN_RULE}: delete the file to have a new token generated, or set HOOKLINE_ADMIN_TOKEN`,
      );
    }
    return kept;
  }
  makeDirectory(dataDir, 0o700);
  const token = `hl_admin_${randomBytes(24).toString("base64url")}`;
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: "wx" });
  chmodSync(file, 0o600);
  return token;
}
