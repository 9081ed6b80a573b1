/**
 * A real API on loopback over a real SQLite file in a fresh temp dir (or, when asked, a fresh
 * PostgreSQL schema), with an engine stand-in that does nothing (the engine has its own tests).
 * Drive it with the official Svix client or fetch.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Svix } from "svix";
import type { FastifyInstance } from "fastify";
import { buildApi, type ApiDeps } from "../../src/api/server.js";
import { systemClock, type Clock } from "../../src/clock.js";
import { resolveConfig, type Config } from "../../src/config.js";
import { DeadLetterQueue } from "../../src/dlq/service.js";
import type { EngineControl, EndpointLiveStatus } from "../../src/engine/control.js";
import { EngineEvents } from "../../src/engine/events.js";
import { newId } from "../../src/ids.js";
import type { ClaimedDelivery, DeliveryOutcome } from "../../src/store/port.js";
import type { PostgresStore } from "../../src/store/postgres/store.js";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import type { Cleanup } from "../support/cleanup.js";
import { aSharedStore, freshSchemaName } from "../support/postgres.js";

/** Which store the API runs over. */
export type ApiStoreKind = "sqlite" | "postgres";
type StoreOf<K extends ApiStoreKind> = K extends "postgres" ? PostgresStore : SqliteStore;

export interface ApiHarness<S extends SqliteStore | PostgresStore = SqliteStore> {
  url: string;
  /** The Fastify instance (for app.inject) and what it was built from (for apiRoutes). */
  app: FastifyInstance;
  deps: ApiDeps;
  /** Where the store keeps its rows: the SQLite file, or the PostgreSQL schema. */
  db: { kind: "sqlite"; path: string } | { kind: "postgres"; schema: string };
  token: string;
  store: S;
  engine: RecordingEngine;
  svix: Svix;
  /** fetch against the API with the admin token (unless `headers.authorization` is given). */
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Response>;
  close(): Promise<void>;
}

/** An EngineControl that only remembers what it was told. */
export interface RecordingEngine extends EngineControl {
  wakes: number;
  /** How long each caller posting a message waited for its commit, ms. */
  callerWaits: number[];
  invalidatedEndpoints: string[];
  invalidatedApplications: string[];
  status: Map<string, EndpointLiveStatus>;
}

function recordingEngine(): RecordingEngine {
  const engine: RecordingEngine = {
    wakes: 0,
    callerWaits: [],
    invalidatedEndpoints: [],
    invalidatedApplications: [],
    status: new Map(),
    wake: () => void engine.wakes++,
    invalidateEndpoint: (id) => void engine.invalidatedEndpoints.push(id),
    invalidateApplication: (id) => void engine.invalidatedApplications.push(id),
    callerWaited: (ms) => void engine.callerWaits.push(ms),
    endpointStatus: (id) => engine.status.get(id) ?? null,
    deliveryBudget: () => null,
    intake: () => null,
  };
  return engine;
}

/**
 * Starts the API over `kind` of store (SQLite unless asked); private targets are allowed unless
 * `allowPrivateTargets: false`. PostgreSQL is reached at `databaseUrl` (a proxy in front of the
 * test database, say) when given.
 */
export async function startApi<K extends ApiStoreKind = "sqlite">(
  overrides: Partial<
    Pick<
      Config,
      "allowPrivateTargets" | "maxBodyBytes" | "maxHeaderBytes" | "secretGraceMs" | "apiRateLimit"
    >
  > = {},
  clock: Clock = systemClock,
  kind: K = "sqlite" as K,
  databaseUrl?: string,
): Promise<ApiHarness<StoreOf<K>>> {
  const dir = await mkdtemp(join(tmpdir(), "hookline-api-"));
  const closeStore: Cleanup = [];
  const schema = freshSchemaName();
  const store =
    kind === "postgres"
      ? await aSharedStore(closeStore, schema, databaseUrl)
      : new SqliteStore({ path: join(dir, "hookline.db"), synchronous: "normal" });
  const config = Object.freeze({
    ...resolveConfig({ HOOKLINE_DATA_DIR: dir }),
    allowPrivateTargets: true,
    ...overrides,
  });
  const token = `test_${randomBytes(16).toString("hex")}`;
  const engine = recordingEngine();
  const policyDefaults = {
    retry: { preset: "default" } as const,
    concurrencyLimit: config.defaultConcurrency,
    timeoutMs: config.requestTimeoutMs,
  };
  // No engine runs here: a replay is queued and answered 202 once the wait is over.
  const dlq = new DeadLetterQueue({
    store,
    engine,
    events: new EngineEvents(),
    clock: systemClock,
    policyDefaults,
    settings: { maxReplays: 5, replayRate: 5, canarySize: 10, canaryThreshold: 0.9 },
  });
  const deps: ApiDeps = {
    store,
    engine,
    dlq,
    config,
    clock,
    adminToken: token,
    policyDefaults,
  };
  const app = buildApi(deps);
  const address = await app.listen({ host: "127.0.0.1", port: 0 });
  const url = address.replace("localhost", "127.0.0.1");
  return {
    url,
    app,
    deps,
    db:
      kind === "postgres"
        ? { kind: "postgres", schema }
        : { kind: "sqlite", path: join(dir, "hookline.db") },
    token,
    store: store as StoreOf<K>,
    engine,
    svix: new Svix(token, { serverUrl: url }),
    call: caller(url, token),
    close: async () => {
      await app.close();
      await store.close();
      for (const step of closeStore.reverse()) await step();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** `ApiHarness.call` for the API at `url`, with `token`. */
function caller(url: string, token: string): ApiHarness["call"] {
  return (method, path, body, headers = {}) =>
    fetch(url + path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
}

/**
 * A second API over `api`'s SQLite file through a store of its own, as another process of a
 * fleet would be: what it writes, `api` finds in the rows, and nothing else is shared.
 */
export async function anotherProcessOver(
  api: ApiHarness,
): Promise<Pick<ApiHarness, "svix" | "call" | "close">> {
  if (api.db.kind !== "sqlite") throw new Error("anotherProcessOver needs a SQLite harness");
  const store = new SqliteStore({ path: api.db.path, synchronous: "normal" });
  const app = buildApi({ ...api.deps, store });
  const url = (await app.listen({ host: "127.0.0.1", port: 0 })).replace("localhost", "127.0.0.1");
  return {
    svix: new Svix(api.token, { serverUrl: url }),
    call: caller(url, api.token),
    close: async () => {
      await app.close();
      await store.close();
    },
  };
}

/** How a test's receiver answered one attempt: a status, or null for no answer at all. */
export interface ScriptedAnswer {
  status: number | null;
  url: string;
  response: string;
}

/**
 * Claims every due delivery and records one attempt for each, answered as `answer` says: 2xx
 * succeeds, anything else is retried a minute later. The harness has no engine; this stands in.
 */
export async function attemptDue(
  api: Pick<ApiHarness<SqliteStore | PostgresStore>, "store">,
  answer: (d: ClaimedDelivery) => ScriptedAnswer,
): Promise<void> {
  const now = Date.now();
  const claimed = await api.store.claimDue({
    now: now + 1,
    limit: 100,
    excludeEndpoints: [],
    leaseUntil: now + 60_000,
  });
  const outcomes = claimed.map((d): DeliveryOutcome => {
    const { status, url, response } = answer(d);
    const ok = status !== null && status >= 200 && status < 300;
    return {
      deliveryId: d.id,
      endpointId: d.endpointId,
      messageId: d.messageId,
      appId: d.appId,
      at: now,
      attempt: {
        id: newId("atmpt"),
        at: now,
        trigger: d.origin === "resend" ? "manual" : d.attemptCount > 0 ? "retry" : "first",
        url,
        status,
        error: status === null ? "connection_refused" : null,
        errorDetail: null,
        durationMs: 12,
        responseSnippet: response,
        outcome: ok ? "success" : "retryable",
      },
      signatureHeaders: {},
      next: ok ? { kind: "succeeded" } : { kind: "retry", at: now + 60_000, delayMs: 60_000 },
      retryAfter: null,
      disableEndpoint: null,
    };
  });
  await api.store.recordAttempts(outcomes);
}

/**
 * Claims every delivery due at `now` and gives each up at once, at `now`, after one attempt the
 * receiver refused with a 400: a dead-letter record made at a time the test chooses.
 */
export async function deadLetterDue(api: ApiHarness, now: number): Promise<void> {
  const claimed = await api.store.claimDue({
    now,
    limit: 100,
    excludeEndpoints: [],
    leaseUntil: now + 60_000,
  });
  await api.store.recordAttempts(
    claimed.map((d): DeliveryOutcome => ({
      deliveryId: d.id,
      endpointId: d.endpointId,
      messageId: d.messageId,
      appId: d.appId,
      at: now,
      attempt: {
        id: newId("atmpt"),
        at: now,
        trigger: "first",
        url: "https://example.com/hook",
        status: 400,
        error: null,
        errorDetail: null,
        durationMs: 12,
        responseSnippet: "no",
        outcome: "permanent",
      },
      signatureHeaders: {},
      next: { kind: "dead", failureClass: "permanent", reason: "HTTP 400" },
      retryAfter: null,
      disableEndpoint: null,
    })),
  );
}
