/**
 * Access control, in one place: who is calling (the bearer token, looked up by its SHA-256) and
 * whether that token may use the route. Admin tokens reach everything; an application's token
 * reaches only the routes of its application, and a route of any other application answers the
 * same 404 as a missing one, so a token never learns which applications exist.
 */
import * as crypto from "node:crypto";
import { performance } from "node:perf_hooks";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Clock } from "../clock.js";
import { ExpiringMap } from "../expiring-map.js";
import type { ApiTokenScope } from "../domain/types.js";
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  StoreUnavailableError,
  UnauthorizedError,
} from "../errors.js";
import { finishedWithin, PROBE_WAIT_MS } from "../finished-within.js";
import { newId } from "../ids.js";
import type { Store } from "../store/port.js";
import type { RouteAccess, RouteDef } from "./route.js";

/** Who made a request: the token it presented, as stored (never the token itself). */
export interface Identity {
  tokenId: string;
  name: string;
  scope: ApiTokenScope;
  appId: string | null;
  /** When the token stops working; null: never. */
  expiresAt: number | null;
  /** The feature flags of the event types it sees (see domain/feature-flags.ts). */
  featureFlags: readonly string[];
  /** Whether it is the configured admin token (HOOKLINE_ADMIN_TOKEN or the data dir's). */
  bootstrap: boolean;
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the auth hook on every authenticated request; null on public ones. */
    identity: Identity | null;
  }
}

/** The SHA-256 of a token: what the store keeps and looks tokens up by. */
export const tokenDigest = (token: string): Buffer => sha256(token);

// Every request hashes its token. The one-shot `crypto.hash` (Node 20.12) costs a fraction of a
// Hash object; `engines` still allows older Node 20s, which get the Hash object.
const sha256: (text: string) => Buffer =
  typeof crypto.hash === "function"
    ? (text) => crypto.hash("sha256", text, "buffer")
    : (text) => crypto.createHash("sha256").update(text, "utf8").digest();

/** A new plain token (`hl_admin_…` or `hl_app_…`, 24 random bytes), shown to its owner once. */
export const newPlainToken = (scope: ApiTokenScope): string =>
  `hl_${scope}_${crypto.randomBytes(24).toString("base64url")}`;

/** Admin tokens remembered for routes served while the store is unavailable (at most). */
const KNOWN_ADMIN_TOKENS = 100;

/**
 * Recently checked tokens (by the token), per store, so a burst of requests with one token costs
 * one lookup a second, not one each. Only valid tokens are kept, for at most a second; revoking
 * through the API clears this process's cache at once (another process sharing the database
 * notices within the second). Beside them, by digest, the admin tokens last found valid, for the
 * routes served while the store cannot be asked (`RouteDef.duringOutage`).
 */
export class TokenCache {
  private readonly recent = new ExpiringMap<Identity>(1_000);
  private readonly admins = new Map<string, Identity>();

  get(token: string, now: number): Identity | undefined {
    return this.recent.get(token, now);
  }

  put(token: string, digestHex: string, identity: Identity, now: number): void {
    this.recent.put(token, identity, now);
    if (identity.scope !== "admin") return;
    if (this.admins.size >= KNOWN_ADMIN_TOKENS) this.admins.clear();
    this.admins.set(digestHex, identity);
  }

  /** The admin token with this digest as last found valid, if it was. */
  lastFound(digestHex: string): Identity | undefined {
    return this.admins.get(digestHex);
  }

  /** The store found no valid token with this digest. */
  refused(digestHex: string): void {
    this.admins.delete(digestHex);
  }

  clear(): void {
    this.recent.clear();
    this.admins.clear();
  }
}

const caches = new WeakMap<Store, TokenCache>();

/** The token cache of one store; the token routes clear it when a token is revoked. */
export function tokenCacheFor(store: Store): TokenCache {
  let cache = caches.get(store);
  if (!cache) caches.set(store, (cache = new TokenCache()));
  return cache;
}

/** Name of the configured (or generated) admin token once registered. */
export const BOOTSTRAP_TOKEN_NAME = "admin";

/**
 * Registers the configured admin token (hashed) unless a token with its hash exists. A revoked
 * bootstrap token stays revoked: revoking it is how an operator retires it.
 */
export async function registerBootstrapToken(
  store: Store,
  adminToken: string,
  clock: Clock,
): Promise<void> {
  const hash = tokenDigest(adminToken).toString("hex");
  if (await store.findApiTokenByHash(hash)) return;
  const now = clock.now();
  try {
    await store.createApiToken({
      id: newId("tok", now),
      name: BOOTSTRAP_TOKEN_NAME,
      scope: "admin",
      appId: null,
      hash,
      createdAt: now,
      revokedAt: null,
    });
  } catch (err) {
    // Another process sharing the database registered it first.
    if (!(err instanceof ConflictError)) throw err;
  }
}

/**
 * When the configured (or generated) admin token was revoked, or null while it is usable: a
 * revoked one stays refused across restarts, which start-up tells the operator of.
 */
export async function bootstrapTokenRevokedAt(
  store: Store,
  adminToken: string,
): Promise<number | null> {
  const found = await store.findApiTokenByHash(tokenDigest(adminToken).toString("hex"));
  return found?.revokedAt ?? null;
}

/** Who may call a route, with the defaults RouteDef.access describes. */
export function accessOf(route: RouteDef): RouteAccess | "public" {
  if (route.public) return "public";
  if (route.access) return route.access;
  return /^\/api\/v1\/app\/\{app_id\}(\/|$)/.test(route.path) ? "app" : "admin";
}

/**
 * Installs the checks that run before every /api/ request, in two hooks: who calls (401 without a
 * valid, unrevoked token), then what it may reach (403 for an application's token on an admin
 * route; 404 on another application's routes). `between` installs what runs in between: the rate
 * limit, so that a token's refused requests count against it too.
 */
export function installAuth(
  app: FastifyInstance,
  deps: { store: Store; adminToken: string | null; clock: Clock },
  routes: readonly RouteDef[],
  between: () => void = () => {},
): void {
  const { store } = deps;
  const { adminToken } = deps;
  // No bootstrap token: no digest matches "".
  const bootstrap = adminToken === null ? "" : tokenDigest(adminToken).toString("hex");
  const keyOf = (r: RouteDef) => `${r.method} ${r.path.replace(/\{(\w+)\}/g, ":$1")}`;
  const accessByRoute = new Map(routes.map((r) => [keyOf(r), accessOf(r)]));
  const duringOutage = new Set(routes.filter((r) => r.duringOutage).map(keyOf));
  app.decorateRequest("identity", null);
  if (adminToken !== null) {
    app.addHook("onReady", async () => registerBootstrapToken(store, adminToken, deps.clock));
  }
  app.addHook("onRequest", async (request) => {
    const access = accessOfRequest(request, accessByRoute);
    if (access === "public") return;
    const method = request.method === "HEAD" ? "GET" : request.method;
    const outage = duringOutage.has(`${method} ${request.routeOptions.url}`);
    request.identity = await identify(store, request, deps.clock, bootstrap, outage);
  });
  between();
  app.addHook("onRequest", async (request) => {
    const identity = request.identity;
    if (!identity) return;
    const access = accessOfRequest(request, accessByRoute);
    if (identity.scope === "admin" || access === "any") return;
    if (access === "admin") throw new ForbiddenError("this route needs an admin token");
    const appIdOrUid = (request.params as Record<string, string | undefined>).app_id ?? "";
    // No application's id or uid holds a NUL (the API refuses one), and PostgreSQL cannot be asked.
    const target = appIdOrUid.includes("\0") ? null : await store.findApplication(appIdOrUid);
    // The same answer as for a missing application (see lookup.ts requireApp).
    if (!target || target.id !== identity.appId) {
      throw new NotFoundError(`application ${appIdOrUid}`);
    }
  });
}

/**
 * Who may make this request, decided from the route the router matched, never from the raw request
 * target: the router decodes the path (`/%61pi/…` is `/api/…`) and takes it out of an absolute-form
 * target (`GET http://host/api/…`), so a check of the raw text could be walked around.
 */
function accessOfRequest(
  request: FastifyRequest,
  accessByRoute: ReadonlyMap<string, RouteAccess | "public">,
): RouteAccess | "public" {
  const routeUrl = request.routeOptions.url;
  const path = routeUrl ?? requestedPath(request.url);
  // /metrics is the one route outside /api/ (where Prometheus expects it); it is guarded too.
  // Anything else outside /api/ is the dashboard's pages and assets, which are public.
  if (!path.startsWith("/api/") && path !== "/metrics") return "public";
  // An unknown route under /api/ needs a token, of any kind: its 404 names only what the caller
  // sent, and a 403 would tell an application's token that an admin token would do better.
  if (routeUrl === undefined) return "any";
  const method = request.method === "HEAD" ? "GET" : request.method;
  // A route not in the API's list (none should be) needs an admin token, like any not said open.
  return accessByRoute.get(`${method} ${routeUrl}`) ?? "admin";
}

/** The decoded path of a request target (origin-form or absolute-form), without its query. */
function requestedPath(target: string): string {
  let path: string;
  try {
    path = new URL(target, "http://hookline.invalid").pathname;
  } catch {
    path = target.split("?")[0] ?? target;
  }
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

async function identify(
  store: Store,
  request: FastifyRequest,
  clock: Clock,
  bootstrapDigest: string,
  duringOutage: boolean,
): Promise<Identity> {
  const header = request.headers.authorization;
  const match = typeof header === "string" ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!match) throw new UnauthorizedError("send Authorization: Bearer <token>");
  const token = match[1]!;
  const cache = tokenCacheFor(store);
  const now = performance.now();
  // Looked up by the token as presented, so a burst with one token hashes it once, not once per
  // request (the digest was 2-3 % of the main thread accepting messages). The cache holds only
  // tokens found valid, for a second, in the memory their requests' headers already passed
  // through; V8 compares two strings' contents only once their seeded hashes are equal.
  const cached = cache.get(token, now);
  if (cached) return unexpired(cached, clock);
  const digest = tokenDigest(token);
  const hex = digest.toString("hex");
  const lookup = store.findApiTokenByHash(hex);
  // The store cannot be asked (down, or silent): a route served meanwhile takes an admin token as
  // this process last found it. Operators need such a route most then; a revocation this process
  // could not read yet is honoured once the store answers.
  const last = duringOutage ? cache.lastFound(hex) : undefined;
  if (last) {
    const answered = await finishedWithin(PROBE_WAIT_MS, lookup).catch((err: unknown) => {
      if (err instanceof StoreUnavailableError) return false;
      throw err;
    });
    if (!answered) return unexpired(last, clock);
  }
  const found = await lookup;
  // The lookup is by digest; comparing the digests again in constant time keeps the check itself
  // free of timing differences whatever the store's index does.
  const stored = found ? Buffer.from(found.hash, "hex") : Buffer.alloc(digest.length);
  const same = stored.length === digest.length && crypto.timingSafeEqual(stored, digest);
  if (!found || !same || found.revokedAt !== null) {
    cache.refused(hex);
    throw new UnauthorizedError("the token is not valid");
  }
  const identity = {
    tokenId: found.id,
    name: found.name,
    scope: found.scope,
    appId: found.appId,
    expiresAt: found.expiresAt ?? null,
    featureFlags: found.featureFlags ?? [],
    bootstrap: hex === bootstrapDigest,
  };
  cache.put(token, hex, identity, now);
  return unexpired(identity, clock);
}

/** The identity, unless its token has expired (a portal link past its lifetime). */
function unexpired(identity: Identity, clock: Clock): Identity {
  if (identity.expiresAt !== null && identity.expiresAt <= clock.now()) {
    throw new UnauthorizedError("the token has expired");
  }
  return identity;
}

/**
 * The feature flags whose event types a request may see: null (all of them) for an admin token,
 * the token's own for an application's.
 */
export function featureFlagsOf(request: FastifyRequest): readonly string[] | null {
  const identity = request.identity;
  return identity && identity.scope === "app" ? identity.featureFlags : null;
}

/** Who made an authenticated request, as the DLQ's audit trail records it: the token's name. */
export function actorOf(request: FastifyRequest): string {
  return request.identity?.name ?? BOOTSTRAP_TOKEN_NAME;
}
