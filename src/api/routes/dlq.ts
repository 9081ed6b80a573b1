/**
 * The dead-letter queue (hookline's addition): listing, the runbook's summary, the whole record,
 * single replays, and people's decisions. Bulk replays are in dlq-jobs.ts.
 */
import type { z } from "zod";
import { NotFoundError, ValidationError } from "../../errors.js";
import { hasPrefix } from "../../ids.js";
import { circuitShown } from "../endpoint-view.js";
import type { Store } from "../../store/port.js";
import type { QueuedReplay, ReplayAnswer } from "../../dlq/service.js";
import { actorOf } from "../auth.js";
import type { ApiDeps } from "../deps.js";
import { answerInWrite } from "../idempotency.js";
import { requireApp, requireEndpoint } from "../lookup.js";
import { msSinceUntil } from "../named-time.js";
import { defineRoute, ok, type RouteDef } from "../route.js";
import { HttpError, HttpValidationError, iso, listAnswer, listOf } from "../schemas/common.js";
import {
  DeadLetterListQuery,
  DeadLetterOut,
  DeadLetterRecordOut,
  DeadLetterSummaryOut,
  DecisionIn,
  OverflowListQuery,
  OverflowOut,
  ReplayIn,
  ReplayOut,
  SummaryQuery,
  attemptOut,
  deadLetterOut,
  deadLetterRecordJson,
  overflowOut,
} from "../schemas/dead-letter.js";

/** A single replay's answer, as the route sends it and a keyed replay keeps it. */
function replayOut(deadLetterId: string, answer: ReplayAnswer): z.output<typeof ReplayOut> {
  return {
    deadLetterId,
    deliveryId: answer.deliveryId,
    result: answer.kind === "queued" ? "queued" : answer.result,
    detail: answer.kind === "queued" ? answer.reason : answer.detail,
    attempt: answer.kind === "attempted" && answer.attempt ? attemptOut(answer.attempt) : null,
    record: deadLetterOut(answer.record),
  };
}

/** The OpenAPI tag of the DLQ's routes. */
export const DLQ_TAG = "Dead-letter queue (hookline)";

/** The error answers the DLQ's routes document. */
export const dlqErrors = {
  404: { description: "No such record, application or endpoint", schema: HttpError },
  409: { description: "The record's (or job's) state does not allow this", schema: HttpError },
  422: { description: "Invalid input", schema: HttpValidationError },
};

/**
 * The application and endpoint a filter names: ids or, with the application, uids. An endpoint id
 * alone is enough (endpoint ids are unique across applications). An endpoint uid alone names no
 * endpoint (each application has its own uids): it is refused at `endpointLoc` (the query's
 * `endpoint_id` unless told) saying so, where "endpoint my-uid not found" read as if none was.
 */
export async function endpointFilter(
  store: Store,
  appIdOrUid: string | undefined,
  endpointIdOrUid: string | undefined,
  endpointLoc: (string | number)[] = ["query", "endpoint_id"],
): Promise<{ appId?: string; endpointId?: string }> {
  const app = appIdOrUid ? await requireApp(store, appIdOrUid) : null;
  if (!endpointIdOrUid) return { appId: app?.id };
  if (!app && !hasPrefix(endpointIdOrUid, "ep")) {
    throw new ValidationError([
      {
        loc: endpointLoc,
        msg: "is not an endpoint id (ep_…): an endpoint's uid names it only with its application, so give the application too",
        type: "value_error",
      },
    ]);
  }
  const ep = app
    ? await requireEndpoint(store, app, endpointIdOrUid)
    : await store.getEndpoint(endpointIdOrUid);
  if (!ep) throw new NotFoundError(`endpoint ${endpointIdOrUid}`);
  return { appId: ep.appId, endpointId: ep.id };
}

/** The DLQ's records, summary, single replays and decisions. */
export function dlqRoutes(deps: ApiDeps): RouteDef[] {
  const { store, dlq, clock } = deps;
  const base = "/api/v1/dlq";
  const common = { tag: DLQ_TAG, extension: true };
  return [
    defineRoute({
      ...common,
      method: "GET",
      path: base,
      operationId: "hookline.dlq.list",
      summary: "List dead-letter records, newest first, filtered by any of the query fields",
      query: DeadLetterListQuery,
      responses: {
        200: { description: "A page of records", schema: listOf(DeadLetterOut) },
        404: dlqErrors[404],
        422: dlqErrors[422],
      },
      handler: async ({ query }) => {
        const where = await endpointFilter(store, query.app_id, query.endpoint_id);
        const page = await store.listDeadLetters({
          ...where,
          messageId: query.message_id,
          states: query.state,
          failureClass: query.failure_class,
          eventType: query.event_type,
          ...msSinceUntil(query),
          limit: query.limit,
          iterator: query.iterator,
          order: query.order ?? "descending",
        });
        return ok(listAnswer({ ...page, data: page.data.map(deadLetterOut) }));
      },
    }),
    defineRoute({
      ...common,
      method: "GET",
      path: `${base}/summary`,
      operationId: "hookline.dlq.summary",
      summary:
        "Open records grouped by endpoint and failure class: count, oldest age, the endpoint's " +
        "last successful delivery and circuit (the runbook's first two steps); an endpoint " +
        "with no open records whose overflow tombstones are kept has a row of its own",
      query: SummaryQuery,
      responses: {
        200: {
          description: "The groups, oldest first, then the endpoints with nothing open",
          schema: DeadLetterSummaryOut,
        },
        404: dlqErrors[404],
      },
      handler: async ({ query }) => {
        const { appId } = await endpointFilter(store, query.app_id, undefined);
        const rows = await store.deadLetterSummary({ appId });
        // The groups' endpoints in one read, and their stored circuits as the summary read them:
        // the dead-letter page reads the summary every 2 s, and it read each group's endpoint and
        // circuit with a store call each.
        const ids = [...new Set(rows.map((row) => row.endpointId))];
        const eps = new Map((await store.getEndpoints(ids)).map((ep) => [ep.id, ep]));
        const now = clock.now();
        const data = [];
        for (const row of rows) {
          const ep = eps.get(row.endpointId);
          const circuit = ep ? circuitShown(deps, ep, row.circuit) : row.circuit;
          data.push({
            appId: row.appId,
            endpointId: row.endpointId,
            endpointUid: ep?.uid ?? null,
            url: ep?.url ?? null,
            failureClass: row.failureClass,
            open: row.open,
            replaying: row.replaying,
            oldestAt: iso(row.oldestAt),
            oldestAgeSeconds:
              row.oldestAt === null ? null : Math.max(0, Math.floor((now - row.oldestAt) / 1000)),
            lastSuccessAt: iso(row.lastSuccessAt),
            circuit: {
              state: circuit?.state ?? "closed",
              since: iso(circuit?.since ?? ep?.createdAt ?? row.oldestAt ?? now),
              nextProbeAt: iso(circuit?.nextProbeAt ?? null),
            },
            depth: row.depth,
            depthCap: deps.config.dlqMaxPerEndpoint,
            overflowed: row.overflowed,
            lastOverflowAt: iso(row.lastOverflowAt),
          });
        }
        return ok({ generatedAt: iso(now), data });
      },
    }),
    defineRoute({
      ...common,
      method: "GET",
      path: `${base}/overflow`,
      operationId: "hookline.dlq.overflow",
      summary:
        "Dead letters not kept as records because their endpoint was at its depth cap, newest " +
        "first (their messages can still be resent until retention removes them)",
      query: OverflowListQuery,
      responses: {
        200: { description: "A page of tombstones", schema: listOf(OverflowOut) },
        404: dlqErrors[404],
      },
      handler: async ({ query }) => {
        const where = await endpointFilter(store, query.app_id, query.endpoint_id);
        const page = await store.listDeadLetterOverflow({
          ...where,
          limit: query.limit,
          iterator: query.iterator,
          order: query.order,
        });
        return ok(listAnswer({ ...page, data: page.data.map(overflowOut) }));
      },
    }),
    defineRoute({
      ...common,
      method: "GET",
      path: `${base}/{dlq_id}`,
      operationId: "hookline.dlq.get",
      summary: "The whole record: payload as sent, every attempt (original and replays), history",
      responses: {
        200: { description: "The record", schema: DeadLetterRecordOut },
        404: dlqErrors[404],
      },
      handler: async ({ params }) => {
        const record = await store.getDeadLetterRecord(params.dlq_id!);
        if (!record) throw new NotFoundError(`dead-letter record ${params.dlq_id}`);
        return { status: 200, json: deadLetterRecordJson(record) };
      },
    }),
    defineRoute({
      ...common,
      method: "POST",
      path: `${base}/{dlq_id}/replay`,
      operationId: "hookline.dlq.replay",
      summary:
        "Replay one open or resolved record now: same bytes and webhook-id, fresh signature. " +
        "200 with its outcome: succeeded, failed, or withdrawn when it ended unsent (its endpoint " +
        "disabled meanwhile), detail saying why no request went out; 202 when it is queued " +
        "(circuit open, endpoint busy), detail says which",
      body: ReplayIn,
      responses: {
        200: { description: "Attempted: the outcome", schema: ReplayOut },
        202: {
          description:
            "Queued: attempted later, the record tells; also a retry's answer, with the " +
            "idempotency key, for the replay the key's first request queued",
          schema: ReplayOut,
        },
        ...dlqErrors,
      },
      handler: async ({ params, body, request }) => {
        const id = params.dlq_id!;
        // A keyed replay keeps "queued" on its key as it is queued, so that a retry is answered
        // for this replay rather than queueing another; the answer sent below (its outcome, once
        // known) then takes its place on the key, which this request still holds.
        const keyed = answerInWrite(request, (queued: QueuedReplay) => ({
          status: 202,
          json: JSON.stringify(replayOut(id, queued)),
        }));
        const answer = await dlq.replay(
          id,
          { actor: actorOf(request), note: body?.note ?? null },
          keyed?.keyAnswer,
        );
        return { status: answer.kind === "queued" ? 202 : 200, body: replayOut(id, answer) };
      },
    }),
    defineRoute({
      ...common,
      method: "POST",
      path: `${base}/{dlq_id}/resolve`,
      operationId: "hookline.dlq.resolve",
      summary: "Mark an open (or abandoned) record resolved, with a note",
      body: DecisionIn,
      responses: { 200: { description: "The record", schema: DeadLetterOut }, ...dlqErrors },
      handler: async ({ params, body, request }) => {
        const record = await dlq.resolve(params.dlq_id!, {
          actor: actorOf(request),
          note: body.note,
        });
        return ok(deadLetterOut(record));
      },
    }),
    defineRoute({
      ...common,
      method: "POST",
      path: `${base}/{dlq_id}/abandon`,
      operationId: "hookline.dlq.abandon",
      summary: "Give up on an open record for good, with a note (it is kept until retention)",
      body: DecisionIn,
      responses: { 200: { description: "The record", schema: DeadLetterOut }, ...dlqErrors },
      handler: async ({ params, body, request }) => {
        const record = await dlq.abandon(params.dlq_id!, {
          actor: actorOf(request),
          note: body.note,
        });
        return ok(deadLetterOut(record));
      },
    }),
  ];
}
