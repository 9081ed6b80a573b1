/**
 * Bulk replays of dead-letter records as background jobs (hookline's addition), and the
 * Svix-compatible endpoint recover call, which starts such a job for one endpoint.
 */
import { actorOf } from "../auth.js";
import type { ApiDeps } from "../deps.js";
import { requireApp, requireEndpoint } from "../lookup.js";
import { msNotBefore, msSinceUntil } from "../named-time.js";
import { defineRoute, ok, type RouteDef } from "../route.js";
import { HttpError, HttpValidationError } from "../schemas/common.js";
import {
  BulkReplayIn,
  RecoverIn,
  RecoverOut,
  ReplayJobOut,
  recoverOut,
  replayJobOut,
} from "../schemas/dead-letter.js";
import { DLQ_TAG, dlqErrors, endpointFilter } from "./dlq.js";

/** Bulk replay jobs and the Svix recover call. */
export function dlqJobRoutes(deps: ApiDeps): RouteDef[] {
  const { store, dlq, clock } = deps;
  const base = "/api/v1/dlq/replay";
  const common = { tag: DLQ_TAG, extension: true };
  return [
    defineRoute({
      ...common,
      method: "POST",
      path: base,
      operationId: "hookline.dlq.replay-bulk",
      summary:
        "Replay open records in the background, selected by endpoint, time window, failure class, " +
        "event type or ids: a canary sample first, then the rest at the job's rate",
      body: BulkReplayIn,
      responses: {
        202: { description: "The job, scheduled", schema: ReplayJobOut },
        404: dlqErrors[404],
        409: {
          description:
            "A scheduled or running job may replay to one of the same endpoints, or the endpoint " +
            "it names is disabled",
          schema: HttpError,
        },
        422: dlqErrors[422],
      },
      handler: async ({ body, request }) => {
        const where = await endpointFilter(store, body.appId, body.endpointId, [
          "body",
          "endpointId",
        ]);
        const job = await dlq.startBulkReplay({
          selection: {
            ...where,
            ...(body.failureClass ? { failureClass: body.failureClass } : {}),
            ...(body.eventType ? { eventType: body.eventType } : {}),
            ...msSinceUntil(body),
            ...(body.ids ? { ids: body.ids } : {}),
          },
          ratePerSecond: body.ratePerSecond,
          canarySize: body.canarySize,
          canaryThreshold: body.canaryThreshold,
          startAt: body.startAt ? msNotBefore(body.startAt) : undefined,
          note: body.note ?? null,
          actor: actorOf(request),
        });
        return { status: 202, body: replayJobOut(job, clock.now()) };
      },
    }),
    defineRoute({
      ...common,
      method: "GET",
      path: `${base}/{job_id}`,
      operationId: "hookline.dlq.replay-job",
      summary: "A bulk replay job's progress, stage, what it waits for and, once it ends, why",
      responses: {
        200: { description: "The job", schema: ReplayJobOut },
        404: { description: "No such job", schema: HttpError },
      },
      handler: async ({ params }) => ok(replayJobOut(await dlq.job(params.job_id!), clock.now())),
    }),
    defineRoute({
      ...common,
      method: "POST",
      path: `${base}/{job_id}/cancel`,
      operationId: "hookline.dlq.replay-job-cancel",
      summary:
        "Cancel a scheduled or running job: nothing more is queued, queued replays not yet sent " +
        "are withdrawn (their records reopen); replays in flight finish",
      responses: {
        200: { description: "The job, cancelled", schema: ReplayJobOut },
        404: { description: "No such job", schema: HttpError },
        409: dlqErrors[409],
      },
      handler: async ({ params, request }) =>
        ok(replayJobOut(await dlq.cancelJob(params.job_id!, actorOf(request)), clock.now())),
    }),
    defineRoute({
      method: "POST",
      path: "/api/v1/app/{app_id}/endpoint/{endpoint_id}/recover",
      // Starts a DLQ bulk replay job, and the DLQ is the operators'.
      access: "admin",
      operationId: "v1.endpoint.recover",
      summary:
        "Replay the endpoint's open dead-letter records dead-lettered since `since` (and before " +
        "`until`), as a bulk replay job with the default canary and rate",
      tag: "Endpoint",
      body: RecoverIn,
      responses: {
        202: { description: "The recovery task", schema: RecoverOut },
        404: { description: "No such application or endpoint", schema: HttpError },
        409: {
          description: "A bulk replay job of the endpoint is running, or the endpoint is disabled",
          schema: HttpError,
        },
        422: { description: "Invalid input", schema: HttpValidationError },
      },
      handler: async ({ params, body, request }) => {
        const app = await requireApp(store, params.app_id!);
        const ep = await requireEndpoint(store, app, params.endpoint_id!);
        const job = await dlq.startBulkReplay({
          task: "endpoint.recover",
          selection: {
            appId: app.id,
            endpointId: ep.id,
            ...msSinceUntil(body),
          },
          actor: actorOf(request),
        });
        return { status: 202, body: recoverOut(job) };
      },
    }),
  ];
}
