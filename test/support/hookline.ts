/**
 * Starts a whole hookline (SQLite store in a fresh temp dir, engine, API on a loopback port) for a
 * test, with the official Svix client pointed at it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { Svix } from "svix";
import { createHookline, type Hookline, type HooklineOverrides } from "../../src/app.js";
import { resolveConfig } from "../../src/config.js";
import type { EngineEvent } from "../../src/engine/events.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "./postgres.js";

export interface TestHookline {
  hookline: Hookline;
  url: string;
  token: string;
  svix: Svix;
  dataDir: string;
  /** Resolves with the first committed delivery event that matches. */
  waitFor(predicate: (e: EngineEvent) => boolean, timeoutMs?: number): Promise<EngineEvent>;
  /** Every engine event so far, in order. */
  events: EngineEvent[];
  /** Stops hookline; pass `keepData` to start another on the same data dir. */
  stop(keepData?: boolean): Promise<void>;
  /** Raw JSON request to the API with the admin token. */
  api<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }>;
}

export async function startHookline(
  options: { env?: Record<string, string>; dataDir?: string; overrides?: HooklineOverrides } = {},
): Promise<TestHookline> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "hookline-test-"));
  const config = resolveConfig({
    HOOKLINE_PORT: "0",
    HOOKLINE_DATA_DIR: dataDir,
    HOOKLINE_ALLOW_PRIVATE_TARGETS: "1",
    HOOKLINE_SHUTDOWN_TIMEOUT_MS: "5000",
    ...options.env,
  });
  const hookline = createHookline(config, {
    logger: pino({ level: "silent" }),
    ...options.overrides,
  });
  const events: EngineEvent[] = [];
  hookline.engine.events.on((e) => events.push(e));
  await hookline.start();
  const url = hookline.url;
  // Null only in a worker started without HOOKLINE_ADMIN_TOKEN, which serves no API to call.
  const token = hookline.adminToken ?? "";
  return {
    hookline,
    url,
    token,
    dataDir,
    events,
    svix: new Svix(token, { serverUrl: url }),
    waitFor: (predicate, timeoutMs) => {
      const seen = events.find(predicate);
      if (seen) return Promise.resolve(seen);
      return hookline.engine.events.waitFor(predicate, timeoutMs);
    },
    async stop(keepData = false) {
      await hookline.stop();
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
    async api(method, path, body) {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : null) as never };
    },
  };
}

/**
 * {@link startHookline} on the embedded store, or on PostgreSQL in a fresh schema, which `stop`
 * drops with the data dir: for tests that run the same checks on both stores.
 */
export async function startHooklineOn(
  kind: "sqlite" | "postgres",
  env: Record<string, string> = {},
  overrides?: HooklineOverrides,
): Promise<TestHookline> {
  if (kind === "sqlite") return startHookline({ env, overrides });
  const schema = freshSchemaName();
  const t = await startHookline({
    env: { ...env, DATABASE_URL: TEST_DATABASE_URL, HOOKLINE_PG_SCHEMA: schema },
    overrides,
  });
  return {
    ...t,
    async stop(keepData = false) {
      await t.stop(keepData);
      if (!keepData) await dropSchema(schema);
    },
  };
}

/** A delivery event predicate: delivery of `messageId` reached `state`. */
export const deliveryOf =
  (messageId: string, state: string, endpointId?: string) =>
  (e: EngineEvent): boolean =>
    e.type === "delivery" &&
    e.messageId === messageId &&
    e.state === state &&
    (endpointId === undefined || e.endpointId === endpointId);
