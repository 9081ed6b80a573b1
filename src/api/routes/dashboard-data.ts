/**
 * Routes the dashboard needs beyond the rest of the API: Svix's send-example (a test event to one
 * endpoint), an endpoint's attempts over time for its charts, and the list of bulk replay jobs.
 * (Svix's own endpoint stats, counts by status, are with the endpoint routes.)
 */
import { z } from "zod";
import { seesEventType } from "../../domain/feature-flags.js";
import { filteredOut } from "../../domain/fan-out.js";
import type { Endpoint } from "../../domain/types.js";
import { ValidationError } from "../../errors.js";
import { newId } from "../../ids.js";
import { featureFlagsOf } from "../auth.js";
import type { AcceptResult } from "../../store/port.js";
import type { ApiDeps } from "../deps.js";
import { answerInWrite } from "../idempotency.js";
import { requireApp, requireChangeableApp, requireEndpoint } from "../lookup.js";
import { defineRoute, ok, type RouteDef } from "../route.js";
import { HttpError, HttpValidationError, iso, listAnswer, listOf } from "../schemas/common.js";
import { ReplayJobOut, replayJobOut } from "../schemas/dead-letter.js";
import { MessageOut, messageJson } from "../schemas/message.js";
import { EventTypeName, listQueryOf } from "../validation.js";
import { DLQ_TAG } from "./dlq.js";

const EventExampleIn = z.object({
  eventType: EventTypeName,
  exampleIndex: z.int().min(0).max(1_000).optional(),
});

const MINUTE = 60_000;

/** How far back a read of recent attempts looks, in minutes (default one hour, at most a week). */
export const WindowMinutes = z.coerce
  .number()
  .int()
  .min(1)
  .max(7 * 24 * 60)
  .default(60);

const StatsQuery = z.object({
  minutes: WindowMinutes,
  /** Bucket width in seconds (default one minute); at most 500 buckets in the window. */
  bucket_seconds: z.coerce.number().int().min(10).max(86_400).default(60),
});

const AttemptBucketOut = z.object({
  start: z.iso.datetime(),
  attempts: z.int(),
  successes: z.int(),
  successRate: z.number(),
  meanDurationMs: z.int(),
  maxDurationMs: z.int(),
});
const EndpointStatsOut = z.object({
  since: z.iso.datetime(),
  bucketSeconds: z.int(),
  buckets: z.array(AttemptBucketOut),
});

/** The example payload an event type's schema offers (Svix keeps them under `schemas["1"]`). */
function examplesOf(schemas: unknown): unknown[] {
  const v1 = (schemas as Record<string, { examples?: unknown }> | null)?.["1"];
  return Array.isArray(v1?.examples) ? v1.examples : [];
}

/**
 * Why a test event of this type would not reach the endpoint, or null when it would: the fan-out's
 * own rule (domain/fan-out.ts) for an enabled endpoint; a test event has no channel, so an
 * endpoint that filters by channel never takes one.
 */
function whyNotSent(ep: Endpoint, eventType: string): string | null {
  if (ep.disabled) return "the endpoint is disabled";
  const why = filteredOut(ep.filterTypes, ep.channels, { eventType, channels: null });
  if (why === "type") return "the endpoint does not take this event type";
  if (why === "channel") return "the endpoint takes only messages on its channels";
  return null;
}

/** send-example, an endpoint's attempt stats and the replay job list. */
export function dashboardDataRoutes(deps: ApiDeps): RouteDef[] {
  const { store, clock, engine } = deps;
  const epPath = "/api/v1/app/{app_id}/endpoint/{endpoint_id}";
  const notFound = { description: "No such application or endpoint", schema: HttpError };
  return [
    defineRoute({
      method: "POST",
      path: `${epPath}/send-example`,
      operationId: "v1.endpoint.send-example",
      summary:
        "Send a test event to this endpoint only: the event type's example payload, or a small " +
        "`{ type, data }` object when the type has none",
      tag: "Endpoint",
      body: EventExampleIn,
      responses: {
        202: { description: "The test message, queued", schema: MessageOut },
        404: notFound,
        409: { description: "The application is hookline's own", schema: HttpError },
        422: { description: "Invalid input", schema: HttpValidationError },
      },
      handler: async ({ params, body, request }) => {
        // A message in one of hookline's own applications would pass for hookline's event.
        const app = await requireChangeableApp(store, params.app_id!);
        const ep = await requireEndpoint(store, app, params.endpoint_id!);
        // An event type the token may not see is as one that does not exist: its examples stay hidden.
        const et = await store.findEventType(body.eventType);
        const visible = et && seesEventType(et, featureFlagsOf(request)) ? et : null;
        const examples = examplesOf(visible?.schemas ?? null);
        const index = body.exampleIndex ?? 0;
        // As in Svix, the index is ignored when the type has no examples: `{ type, data }` goes.
        if (body.exampleIndex !== undefined && examples.length > 0 && index >= examples.length) {
          throw new ValidationError([
            {
              loc: ["body", "exampleIndex"],
              msg: `the event type has ${examples.length} example(s)`,
              type: "value_error",
            },
          ]);
        }
        // A message's payload is a JSON object; an example may be any JSON value.
        const example = examples[index];
        if (
          example !== undefined &&
          (typeof example !== "object" || example === null || Array.isArray(example))
        ) {
          throw new ValidationError([
            {
              loc: ["body", "exampleIndex"],
              msg: `the event type's example ${index} is not a JSON object, which a message's payload must be`,
              type: "value_error",
            },
          ]);
        }
        // Checked before the message is written, so a refused request leaves nothing behind.
        const refusal = whyNotSent(ep, body.eventType);
        if (refusal) {
          throw new ValidationError([
            { loc: ["body", "eventType"], msg: refusal, type: "value_error" },
          ]);
        }
        const now = clock.now();
        const payload = example ?? {
          type: body.eventType,
          data: { test: true, sentAt: iso(now) },
        };
        // A keyed post keeps its answer in the message's transaction, as a message's post does:
        // kept after it, an answer that failed to be kept let a retry send the test event again.
        const answer = (sent: AcceptResult) => ({
          status: 202,
          json: messageJson(sent.message, true),
        });
        const keyed = answerInWrite(request, answer);
        const result = await store.acceptMessage({
          id: newId("msg", now),
          appId: app.id,
          eventType: body.eventType,
          eventId: null,
          channels: null,
          tags: ["hookline.test"],
          payload: Buffer.from(JSON.stringify(payload), "utf8"),
          now,
          dueAt: now,
          newDeliveryId: () => newId("dlv", now),
          onlyEndpointId: ep.id,
          keyAnswer: keyed?.keyAnswer,
        });
        // None only if the endpoint changed since the check above: the message is stored by now,
        // so it is answered as accepted, like one sent a moment before the endpoint changed.
        if (result.deliveries > 0) engine.wake(now);
        return keyed?.kept() ?? answer(result);
      },
    }),
    defineRoute({
      method: "GET",
      path: `${epPath}/attempt-stats`,
      operationId: "hookline.endpoint.attempt-stats",
      summary: "The endpoint's attempts over time: count, success rate and duration per bucket",
      tag: "Endpoint",
      extension: true,
      query: StatsQuery,
      responses: {
        200: {
          description: "Buckets, oldest first; empty ones left out",
          schema: EndpointStatsOut,
        },
        404: notFound,
        422: { description: "Invalid input", schema: HttpValidationError },
      },
      handler: async ({ params, query }) => {
        const app = await requireApp(store, params.app_id!);
        const ep = await requireEndpoint(store, app, params.endpoint_id!);
        const bucketMs = query.bucket_seconds * 1_000;
        if ((query.minutes * MINUTE) / bucketMs > 500) {
          throw new ValidationError([
            {
              loc: ["query", "bucket_seconds"],
              msg: "too narrow for the window: at most 500 buckets",
              type: "value_error",
            },
          ]);
        }
        const since = Math.floor((clock.now() - query.minutes * MINUTE) / bucketMs) * bucketMs;
        const buckets = await store.attemptBuckets({ endpointId: ep.id, since, bucketMs });
        return ok({
          since: iso(since),
          bucketSeconds: query.bucket_seconds,
          buckets: buckets.map((b) => ({
            ...b,
            start: iso(b.start),
            successRate: b.attempts ? b.successes / b.attempts : 0,
          })),
        });
      },
    }),
    defineRoute({
      method: "GET",
      path: "/api/v1/dlq/replay",
      operationId: "hookline.dlq.replay-job-list",
      summary: "Bulk replay jobs, newest first unless `order=ascending`",
      tag: DLQ_TAG,
      extension: true,
      query: listQueryOf("job"),
      responses: { 200: { description: "A page of jobs", schema: listOf(ReplayJobOut) } },
      handler: async ({ query }) => {
        const page = await store.listReplayJobs({
          limit: query.limit,
          iterator: query.iterator ?? null,
          order: query.order ?? "descending",
        });
        const now = clock.now();
        return ok(listAnswer({ ...page, data: page.data.map((j) => replayJobOut(j, now)) }));
      },
    }),
  ];
}
