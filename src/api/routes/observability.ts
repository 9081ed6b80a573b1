/** Metrics, alerts, system stats, readiness and failure drills. */
import { z } from "zod";
import { ConflictError, NotFoundError } from "../../errors.js";
import { checkReady, type Observability } from "../../observability/service.js";
import type { DrillRun } from "../../store/port.js";
import type { ApiDeps } from "../deps.js";
import { defineRoute, ok, type RouteDef } from "../route.js";
import { HttpError, iso } from "../schemas/common.js";
import { AlertsOut, DrillRunOut, ReadyOut, StatsOut } from "../schemas/observability.js";

const TAG = "Observability";

/** The process's observability, or a 404 where it does not run (an API-only stand-in). */
export function observabilityOf(deps: ApiDeps): Observability {
  if (!deps.observability) throw new NotFoundError("observability in this process");
  return deps.observability;
}

const drillView = (r: DrillRun) => ({
  id: r.id,
  trigger: r.trigger,
  passed: r.passed,
  startedAt: iso(r.startedAt),
  finishedAt: iso(r.finishedAt),
  durationMs: r.finishedAt - r.startedAt,
  steps: r.steps,
});

export function observabilityRoutes(deps: ApiDeps): RouteDef[] {
  return [
    defineRoute({
      method: "GET",
      path: "/metrics",
      operationId: "hookline.metrics",
      summary: "Prometheus metrics (text exposition format)",
      tag: TAG,
      extension: true,
      // Scraped with the admin token unless HOOKLINE_METRICS_PUBLIC is set.
      public: deps.config?.metricsPublic === true,
      // Its counters and the engine's gauges matter most while the database is down.
      duringOutage: true,
      responses: { 200: { description: "Metrics in the Prometheus text format" } },
      handler: async () => {
        const o = observabilityOf(deps);
        const text = await o.metrics.render();
        return { status: 200, text, contentType: o.metrics.contentType };
      },
    }),
    defineRoute({
      method: "GET",
      path: "/api/v1/alerts",
      operationId: "hookline.alerts.list",
      summary: "Alerts firing now and those resolved in the last 24 hours, newest first",
      tag: TAG,
      extension: true,
      responses: { 200: { description: "Firing and recently resolved alerts", schema: AlertsOut } },
      handler: async () => ok(await observabilityOf(deps).alerts()),
    }),
    defineRoute({
      method: "GET",
      path: "/api/v1/stats",
      operationId: "hookline.stats.get",
      summary: "Queue, dead-letter queue and delivery numbers of the whole system",
      tag: TAG,
      extension: true,
      responses: { 200: { description: "System numbers", schema: StatsOut } },
      handler: async () => ok(await observabilityOf(deps).stats()),
    }),
    defineRoute({
      method: "GET",
      path: "/api/v1/health/ready",
      operationId: "hookline.health.ready",
      summary: "200 when this process can serve (its store answers), else 503",
      tag: "Health",
      extension: true,
      public: true,
      responses: {
        200: { description: "Ready", schema: ReadyOut },
        503: { description: "Not ready: the store is unreachable", schema: ReadyOut },
      },
      handler: async () => {
        const state = await checkReady(deps.store);
        return { status: state.ready ? 200 : 503, body: state };
      },
    }),
    defineRoute({
      method: "POST",
      path: "/api/v1/drill",
      operationId: "hookline.drill.run",
      summary: "Run a failure drill now and answer with its result (joins a running one)",
      tag: TAG,
      extension: true,
      responses: {
        200: { description: "The drill's result", schema: DrillRunOut },
        409: { description: "This process serves the API only (--role api)", schema: HttpError },
      },
      handler: async () => {
        const drills = observabilityOf(deps).drills;
        // The drill's receiver lives in this process, and an API-only one delivers nothing: the
        // drill could only time out and record a failure that fires drill_failing.
        if (deps.config.role === "api") {
          throw new ConflictError(
            "failure drills run in a process that delivers, and this one serves the API only " +
              "(--role api): run the drill against a process started with --role all",
          );
        }
        return ok(drillView(await drills.run("manual")));
      },
    }),
    defineRoute({
      method: "GET",
      path: "/api/v1/drill",
      operationId: "hookline.drill.list",
      summary: "The latest failure drills, newest first",
      tag: TAG,
      extension: true,
      responses: {
        200: { description: "Drill runs", schema: z.object({ data: z.array(DrillRunOut) }) },
      },
      handler: async () => {
        observabilityOf(deps);
        return ok({ data: (await deps.store.listDrillRuns(20)).map(drillView) });
      },
    }),
  ];
}
