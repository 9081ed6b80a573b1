/** Svix messages: /api/v1/app/{app_id}/msg. */
import { z } from "zod";
import { filteredOut } from "../../domain/fan-out.js";
import type { Endpoint, Message } from "../../domain/types.js";
import { ConflictError } from "../../errors.js";
import { newId } from "../../ids.js";
import type { AcceptResult } from "../../store/port.js";
import type { ApiDeps } from "../deps.js";
import { answerInWrite, heldKey, type JsonAnswer } from "../idempotency.js";
import { endpointPages, requireApp, requireMessage, requireOrCreateApp } from "../lookup.js";
import { msBetween, msNotBefore } from "../named-time.js";
import { defineRoute, ok, type RouteDef } from "../route.js";
import { refuseSystemApp } from "../system-guard.js";
import { memberBytes } from "../payload-bytes.js";
import { contentDifferences, type PostedContent } from "../repeated-event.js";
import { deliveryStatusOf, MessageWithStatusOut } from "../schemas/attempt.js";
import { HttpError, HttpValidationError, extension, listOf } from "../schemas/common.js";
import { Channel } from "../schemas/endpoint.js";
import {
  MessageIn,
  MessageOut,
  MessagePrecheckIn,
  MessagePrecheckOut,
  PAGE_PAYLOAD_BYTES,
  Tag,
  listJson,
  messageJson,
} from "../schemas/message.js";
import { quickMessageIn } from "../schemas/message-quick.js";
import {
  beforeLaterThanAfter,
  EventTypesQuery,
  listQueryOf,
  QueryBool,
  QueryTime,
} from "../validation.js";

const TAG = "Message";
const errors = {
  404: { description: "No such application or message", schema: HttpError },
  422: { description: "Invalid input", schema: HttpValidationError },
};

const WithContent = { with_content: QueryBool.optional() };

/**
 * The payload as the caller wrote it (see payload-bytes.ts); re-stringified only if the raw body
 * is missing or (which should not happen for a body that parsed) the scanner cannot find it.
 */
function payloadBytes(raw: Buffer | null, parsed: unknown): Buffer {
  const bytes = raw ? memberBytes(raw, "payload") : undefined;
  return bytes?.[0] === 0x7b ? bytes : Buffer.from(JSON.stringify(parsed), "utf8");
}

/** A repeated eventId that says something else is refused, not dropped behind a 200. */
function refuseOtherContent(existing: Message, posted: PostedContent): void {
  const differ = contentDifferences(existing, posted);
  if (differ.length === 0) return;
  throw new ConflictError(
    `eventId ${existing.eventId} is message ${existing.id}, whose ${differ.join(", ")} ${differ.length === 1 ? "differs" : "differ"} from this post's; a message cannot change: post it with another eventId`,
  );
}

export function messageRoutes(deps: ApiDeps): RouteDef[] {
  const { store, clock, engine } = deps;
  const base = "/api/v1/app/{app_id}/msg";

  return [
    defineRoute({
      method: "POST",
      path: base,
      operationId: "v1.message.create",
      summary:
        "Accept a message for delivery (202); a repeated eventId answers 200 with the first message, or 409 if the post says something else",
      tag: TAG,
      query: z.object(WithContent),
      body: MessageIn,
      freeJson: ["payload"],
      quickBody: quickMessageIn,
      responses: {
        200: { description: "A message with this eventId already exists", schema: MessageOut },
        202: { description: "Accepted: stored and queued for delivery", schema: MessageOut },
        ...errors,
        409: {
          description:
            "A message with this eventId already exists and says something else, or the application is hookline's own",
          schema: HttpError,
        },
      },
      handler: async ({ request, params, query, body }) => {
        const started = performance.now();
        const app = await requireOrCreateApp(deps, params.app_id!, body.application);
        // Only hookline writes its own applications' messages: one posted here would be forged.
        refuseSystemApp(app);
        const now = clock.now();
        // Finer than a millisecond, it is rounded up: delivered at the millisecond it falls in, the
        // message would go before the time asked for.
        const deliverAt = body.deliverAt ? msNotBefore(body.deliverAt) : now;
        const dueAt = Math.max(now, deliverAt);
        const posted: PostedContent = {
          eventType: body.eventType,
          channels: body.channels?.length ? body.channels : null,
          tags: body.tags?.length ? body.tags : null,
          payload: payloadBytes(request.rawBody, body.payload),
        };
        const withContent = query.with_content ?? true;
        // Only a keyed post makes its answer inside the transaction; others pay nothing for it.
        const keyed = heldKey(request)
          ? answerInWrite(request, messageAnswer(posted, withContent))
          : undefined;
        // Fields named, not spread: every message passes here (see attempt.ts on spreads in V8).
        const result = await store.acceptMessage({
          id: newId("msg", now),
          appId: app.id,
          eventType: posted.eventType,
          eventId: body.eventId ?? null,
          channels: posted.channels,
          tags: posted.tags,
          payload: posted.payload,
          now,
          dueAt,
          deliverAt: body.deliverAt ? deliverAt : null,
          newDeliveryId: () => newId("dlv", now),
          intake: engine.intake() ?? undefined,
          keyAnswer: keyed?.keyAnswer,
        });
        // The message is committed by now; only then is the engine told and the caller answered.
        // What its intake took is in its hands already; only deliveries left due need a wake-up.
        engine.callerWaited(performance.now() - started);
        if (!result.created) refuseOtherContent(result.message, posted);
        if (result.deliveries > result.taken) engine.wake(dueAt);
        const status = result.created ? 202 : 200;
        return keyed?.kept() ?? { status, json: messageJson(result.message, withContent) };
      },
    }),
    defineRoute({
      method: "GET",
      path: base,
      operationId: "v1.message.list",
      summary: "List an application's messages, newest first",
      tag: TAG,
      query: listQueryOf("msg")
        .extend({
          ...WithContent,
          channel: Channel.optional(),
          before: QueryTime.optional(),
          after: QueryTime.optional(),
          event_types: EventTypesQuery.optional(),
          tag: Tag.optional(),
          // hookline's: each message with where its deliveries stand (`deliveryStatus`).
          with_status: extension(QueryBool).optional(),
        })
        .superRefine(beforeLaterThanAfter),
      responses: {
        200: { description: "A page of messages", schema: listOf(MessageWithStatusOut) },
      },
      handler: async ({ params, query }) => {
        const app = await requireApp(store, params.app_id!);
        const withContent = query.with_content ?? true;
        const page = await store.listMessages(app.id, {
          withContent,
          maxPayloadBytes: PAGE_PAYLOAD_BYTES,
          limit: query.limit,
          iterator: query.iterator,
          order: query.order,
          channel: query.channel,
          tag: query.tag,
          ...msBetween(query),
          eventTypes: query.event_types,
        });
        const json = page.data.map((m) => messageJson(m, withContent));
        if (query.with_status) {
          // One read for the whole page, through the messages' own deliveries.
          const ids = page.data.map((m) => m.id);
          const states = await store.messageDeliveryStates(app.id, ids);
          json.forEach((text, i) => {
            const status = JSON.stringify(deliveryStatusOf(states.get(ids[i]!)!));
            json[i] = `${text.slice(0, -1)},"deliveryStatus":${status}}`;
          });
        }
        return { status: 200, json: listJson(json, page) };
      },
    }),
    defineRoute({
      method: "POST",
      path: `${base}/precheck/active`,
      operationId: "v1.message.precheck",
      summary:
        "Whether a message of this event type (and channels) would go to any endpoint now; " +
        "nothing is stored",
      tag: TAG,
      body: MessagePrecheckIn,
      responses: {
        200: { description: "Whether it would", schema: MessagePrecheckOut },
        ...errors,
      },
      handler: async ({ params, body }) => {
        const app = await requireApp(store, params.app_id!);
        const msg = { eventType: body.eventType, channels: body.channels ?? null };
        const takes = (ep: Endpoint) =>
          !ep.disabled && filteredOut(ep.filterTypes, ep.channels, msg) === null;
        for await (const page of endpointPages(store, app.id)) {
          if (page.some(takes)) return ok({ active: true });
        }
        return ok({ active: false });
      },
    }),
    defineRoute({
      method: "GET",
      path: `${base}/{msg_id}`,
      operationId: "v1.message.get",
      summary: "Get a message by id or eventId",
      tag: TAG,
      query: z.object(WithContent),
      responses: { 200: { description: "The message", schema: MessageOut }, 404: errors[404] },
      handler: async ({ params, query }) => {
        const app = await requireApp(store, params.app_id!);
        const msg = await requireMessage(store, app, params.msg_id!);
        return { status: 200, json: messageJson(msg, query.with_content ?? true) };
      },
    }),
  ];
}

/** A keyed post's answer as made inside the message's transaction, to be sent as it was kept. */
/**
 * The answer a keyed post keeps on its key in the message's own transaction: none (the post
 * refused) when an earlier message with its eventId differs in content.
 */
function messageAnswer(
  posted: PostedContent,
  withContent: boolean,
): (r: AcceptResult) => JsonAnswer | null {
  return (r) =>
    r.created || contentDifferences(r.message, posted).length === 0
      ? { status: r.created ? 202 : 200, json: messageJson(r.message, withContent) }
      : null;
}
