/**
 * The delivery engine on a real SQLite store in a temp dir, sending real HTTP, without the API:
 * for tests of delivery rules that want to set up state directly.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock } from "../../src/clock.js";
import { systemClock } from "../../src/clock.js";
import type { Application, DeliveryPolicy, Endpoint } from "../../src/domain/types.js";
import { DEFAULT_ADAPTIVE, type AdaptiveSettings } from "../../src/engine/adaptive-limit.js";
import { DEFAULT_BREAKER, type BreakerSettings } from "../../src/engine/breaker.js";
import { DeliveryEngine, type EngineLogger } from "../../src/engine/engine.js";
import type { EngineEvent } from "../../src/engine/events.js";
import type { LoopBudgetSettings } from "../../src/engine/loop-budget.js";
import { HttpSender, type Sender } from "../../src/engine/sender.js";
import { newId } from "../../src/ids.js";
import { generateSecret } from "../../src/signing/secret.js";
import { SqliteStore } from "../../src/store/sqlite/store.js";

export interface EngineHarness {
  store: SqliteStore;
  /** The store's database file, for a test that writes what no store call would. */
  dbPath: string;
  engine: DeliveryEngine;
  events: EngineEvent[];
  app: Application;
  addEndpoint(url: string, policy?: DeliveryPolicy, extra?: Partial<Endpoint>): Promise<Endpoint>;
  /**
   * Accepts a message through the store, due now unless `dueAt` says otherwise, and wakes the
   * engine unless `wake` is false (work the engine is not told about).
   */
  post(
    payload: unknown,
    options?: { eventType?: string; eventId?: string; dueAt?: number; wake?: boolean },
  ): Promise<string>;
  waitFor(predicate: (e: EngineEvent) => boolean, timeoutMs?: number): Promise<EngineEvent>;
  /** Stops the engine; `restart` starts a new one on the same store. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startEngine(
  options: {
    clock?: Clock;
    random?: () => number;
    breaker?: Partial<BreakerSettings>;
    adaptive?: Partial<AdaptiveSettings>;
    refusePrivateTargets?: boolean;
    loopBudget?: Partial<LoopBudgetSettings>;
    /** The engine's sender (default: an HttpSender); the harness closes it. */
    sender?: Sender;
    /** Where the engine logs (default: nowhere). */
    logger?: EngineLogger;
  } = {},
): Promise<EngineHarness> {
  const dir = mkdtempSync(join(tmpdir(), "hookline-engine-"));
  const dbPath = join(dir, "hookline.db");
  const store = new SqliteStore({ path: dbPath, synchronous: "normal" });
  const clock = options.clock ?? systemClock;
  const events: EngineEvent[] = [];
  const sender =
    options.sender ??
    new HttpSender({ refusePrivateTargets: options.refusePrivateTargets ?? false });
  const make = () => {
    const engine = new DeliveryEngine({
      store,
      sender,
      clock,
      logger: options.logger,
      random: options.random ?? (() => 0.5),
      settings: {
        policyDefaults: { retry: { preset: "default" }, concurrencyLimit: 100, timeoutMs: 15_000 },
        breaker: { ...DEFAULT_BREAKER, ...options.breaker },
        adaptive: { ...DEFAULT_ADAPTIVE, ...options.adaptive },
        batchSize: 256,
        maxClaimed: 4096,
        leaseMs: 300_000,
        shutdownTimeoutMs: 5_000,
        loopBudget: options.loopBudget,
      },
    });
    engine.events.on((e) => events.push(e));
    return engine;
  };
  const now = clock.now();
  const app: Application = {
    id: newId("app"),
    uid: null,
    name: "test app",
    rateLimit: null,
    metadata: {},
    deliveryPolicy: null,
    createdAt: now,
    updatedAt: now,
  };
  await store.createApplication(app);
  const h: EngineHarness = {
    store,
    dbPath,
    engine: make(),
    events,
    app,
    async addEndpoint(url, policy, extra) {
      const t = clock.now();
      const ep: Endpoint = {
        id: newId("ep"),
        appId: app.id,
        uid: null,
        url,
        description: "",
        version: 1,
        disabled: false,
        disabledReason: null,
        filterTypes: null,
        channels: null,
        headers: {},
        metadata: {},
        rateLimit: null,
        secrets: { current: generateSecret(), previous: [] },
        deliveryPolicy: policy ?? null,
        createdAt: t,
        updatedAt: t,
        ...extra,
      };
      await store.createEndpoint(ep);
      return ep;
    },
    async post(payload, opts = {}) {
      const t = clock.now();
      const id = newId("msg");
      await store.acceptMessage({
        id,
        appId: app.id,
        eventType: opts.eventType ?? "test.event",
        eventId: opts.eventId ?? null,
        channels: null,
        tags: null,
        payload: Buffer.from(JSON.stringify(payload)),
        now: t,
        dueAt: opts.dueAt ?? t,
        newDeliveryId: () => newId("dlv"),
      });
      if (opts.wake ?? true) h.engine.wake();
      return id;
    },
    waitFor(predicate, timeoutMs) {
      const seen = events.find(predicate);
      return seen ? Promise.resolve(seen) : h.engine.events.waitFor(predicate, timeoutMs);
    },
    async restart() {
      await h.engine.stop();
      h.engine = make();
      await h.engine.start();
    },
    async close() {
      await h.engine.stop();
      await sender.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await h.engine.start();
  return h;
}

/** Matches a committed delivery event of `messageId` in `state`. */
export const reached =
  (messageId: string, state: string) =>
  (e: EngineEvent): boolean =>
    e.type === "delivery" && e.messageId === messageId && e.state === state;

/** Lets pending promises and immediates run (after a fake clock advance). */
export const settle = () => new Promise((r) => setTimeout(r, 20));
