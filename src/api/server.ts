/**
 * The HTTP API: the Svix v1 REST API (so the official `svix` clients work against hookline) plus
 * hookline's extensions. Every route is declared once (see route.ts) and both served and
 * documented from that declaration.
 */
import Fastify, {
  LogController,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from "fastify";
import { installAuth } from "./auth.js";
import { errorAnswer, installBoundary } from "./boundary.js";
import type { ApiDeps } from "./deps.js";
import { installIdempotency } from "./idempotency.js";
import { answerClientError, MAX_HEADER_COUNT, REQUEST_TIMEOUT_MS } from "./limits.js";
import { installRateLimit } from "./rate-limit.js";
import { registerRoutes, type RouteDef } from "./route.js";
import { applicationRoutes } from "./routes/applications.js";
import { attemptRoutes } from "./routes/attempts.js";
import { deliveryRoutes } from "./routes/delivery.js";
import { dlqJobRoutes } from "./routes/dlq-jobs.js";
import { dlqRoutes } from "./routes/dlq.js";
import { endpointSettingsRoutes } from "./routes/endpoint-settings.js";
import { endpointRoutes } from "./routes/endpoints.js";
import { eventTypeRoutes } from "./routes/event-types.js";
import { messageRoutes } from "./routes/messages.js";
import { observabilityRoutes } from "./routes/observability.js";
import { operationalWebhookRoutes } from "./routes/operational-webhooks.js";
import { systemRoutes } from "./routes/system.js";
import { tokenRoutes } from "./routes/tokens.js";
import { dashboardDataRoutes } from "./routes/dashboard-data.js";
import { endpointHealthRoutes } from "./routes/endpoint-health.js";
import { portalAccessRoutes } from "../ui/portal-access.js";
import { installDashboard } from "../ui/assets.js";

export type { ApiDeps } from "./deps.js";

/** Every route of the API, in the order the OpenAPI document lists them. */
export function apiRoutes(deps: ApiDeps): RouteDef[] {
  const routes: RouteDef[] = [];
  routes.push(
    ...systemRoutes(deps, () => routes),
    ...applicationRoutes(deps),
    ...endpointRoutes(deps),
    ...endpointSettingsRoutes(deps),
    ...deliveryRoutes(deps),
    ...eventTypeRoutes(deps),
    ...messageRoutes(deps),
    ...attemptRoutes(deps),
    ...dlqRoutes(deps),
    ...dlqJobRoutes(deps),
    ...tokenRoutes(deps),
    ...dashboardDataRoutes(deps),
    ...endpointHealthRoutes(deps),
    ...portalAccessRoutes(deps),
    ...observabilityRoutes(deps),
    ...operationalWebhookRoutes(deps),
  );
  return routes;
}

/**
 * What a worker process serves: its probes and its metrics (the delivery counters are its own, so
 * Prometheus scrapes it); the API and the dashboard are the API processes' work.
 */
const WORKER_PATHS = new Set(["/api/v1/health", "/api/v1/health/ready", "/metrics"]);

/**
 * Why a worker has no route for a request: it serves no API. A drill needs the API and deliveries
 * in one process, which an API-only process lacks too (it answers 409 saying so): that one is
 * sent to `--role all` alone.
 */
function whyWorkerHasNoRoute(method: string, path: string): string {
  const where =
    method === "POST" && path === "/api/v1/drill"
      ? "failure drills run in a process that serves the API and delivers: run the drill " +
        "against a process started with --role all"
      : "the API is served by --role api and --role all processes";
  return `: this is a --role worker process, which serves only its health, readiness and /metrics; ${where}`;
}

/** Builds the API server (not yet listening). */
export function buildApi(deps: ApiDeps): FastifyInstance {
  const app = Fastify({
    logger: false,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.config.maxBodyBytes,
    http: { maxHeaderSize: deps.config.maxHeaderBytes },
    requestTimeout: REQUEST_TIMEOUT_MS,
    clientErrorHandler: answerClientError,
    // Uids and event ids may be 256 characters; a longer parameter is refused with a 422.
    routerOptions: { maxParamLength: 1024 },
    // Malformed URLs (bad percent-encoding) get the same JSON error shape as everything else.
    frameworkErrors: (error, _request, reply) => {
      const answer = errorAnswer(error);
      void (reply as FastifyReply)
        .header(CACHE_CONTROL, NO_STORE)
        .code(answer.status)
        .send(answer.body);
    },
  });
  app.decorateRequest("rawBody", null);
  // First, so every answer says it, whichever hook or handler gives it (a refused token, an
  // idempotency key's replay): the dashboard's page and assets say otherwise.
  app.addHook("onRequest", keepNoCopy);
  // A CLI or client pointed at a worker's port meets only 404s: say why.
  installBoundary(
    app,
    deps.logger,
    deps.config.role === "worker" ? whyWorkerHasNoRoute : undefined,
  );
  closeConnectionsWhenStopping(app);

  const worker = deps.config.role === "worker";
  const routes = apiRoutes(deps).filter((r) => !worker || WORKER_PATHS.has(r.path));
  installAuth(app, deps, routes, () =>
    installRateLimit(app, { ...deps, settings: deps.config.apiRateLimit }),
  );
  // After auth, whose checks run at onRequest: an application's token is refused another
  // application's path before its keys are looked at, so a key it used under a uid its
  // application gave up never replays for the application that took the uid.
  installIdempotency(app, deps);
  registerRoutes(app, routes);
  app.server.maxHeadersCount = MAX_HEADER_COUNT;
  // The dashboard's pages and assets (not API routes: no token, nothing in the OpenAPI document).
  if (!worker) installDashboard(app);
  return app;
}

const CACHE_CONTROL = "cache-control";
const NO_STORE = "no-store";

/**
 * Tells browsers and proxies to keep no copy of the answer. Most API answers hold a customer's
 * data (an endpoint's URL, a payload, what a receiver answered) or a secret, the portal's and the
 * console's are read in a browser, and none gains from a cache: every answer says `no-store`.
 * Callback style: no promise per request on the hot path.
 */
function keepNoCopy(_request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  reply.header(CACHE_CONTROL, NO_STORE);
  done();
}

/**
 * Stopping closes the idle connections at once, but one whose request is in flight stays open
 * until answered and, answered as keep-alive, for the keep-alive timeout after (72 s): under
 * steady traffic some request is always in flight, and the stop would wait for it. Answers given
 * while stopping say `Connection: close`, so each such connection ends with its answer. (Requests
 * that arrive meanwhile are answered 503 by Fastify, closing too.)
 */
function closeConnectionsWhenStopping(app: FastifyInstance): void {
  let stopping = false;
  app.addHook("preClose", (done) => {
    stopping = true;
    done();
  });
  // Callback style: no promise per request on the hot path.
  app.addHook("onSend", (_request, reply, payload, done) => {
    if (stopping) reply.header("connection", "close");
    done(null, payload);
  });
}
