/** Svix message attempts, a message's destinations, and manual resends. */
import { z } from "zod";
import type { Application, Attempt, Delivery, Message } from "../../domain/types.js";
import { ConflictError, NotFoundError } from "../../errors.js";
import { circuitOf, circuitShown } from "../endpoint-view.js";
import { endsUnsent } from "../ends-unsent.js";
import { resolvePolicy } from "../../engine/policy.js";
import { newId } from "../../ids.js";
import type { AttemptQuery, Page } from "../../store/port.js";
import type { ApiDeps } from "../deps.js";
import { answerInWrite, type JsonAnswer } from "../idempotency.js";
import { requireApp, requireEndpoint, requireMessage } from "../lookup.js";
import { msBetween } from "../named-time.js";
import { defineRoute, type RouteDef } from "../route.js";
import {
  EndpointMessageOut,
  MessageAttemptOut,
  MessageEndpointOut,
  attemptJson,
  endpointMessageJson,
  messageEndpointOut,
  stateOf,
} from "../schemas/attempt.js";
import { HttpError, listAnswer, listOf } from "../schemas/common.js";
import { Channel } from "../schemas/endpoint.js";
import { PAGE_PAYLOAD_BYTES, Tag, listJson } from "../schemas/message.js";
import {
  beforeLaterThanAfter,
  EventTypesQuery,
  idIterator,
  listQueryOf,
  QueryBool,
  QueryTime,
} from "../validation.js";

const TAG = "Message Attempt";
const notFound = {
  404: { description: "No such application, message or endpoint", schema: HttpError },
};

/** The filters of every list of attempts or attempted messages (paged by message id). */
const AttemptedQuery = listQueryOf("msg").extend({
  status: z
    .enum(["0", "1", "2", "3", "4"], { error: "must be a message status from 0 to 4" })
    .transform(Number)
    .optional(),
  before: QueryTime.optional(),
  after: QueryTime.optional(),
  with_content: QueryBool.optional(),
  // hookline's statuses are already the expanded ones.
  expanded_statuses: QueryBool.optional(),
  channel: Channel.optional(),
  tag: Tag.optional(),
  event_types: EventTypesQuery.optional(),
});

const AttemptListQuery = AttemptedQuery.extend({
  iterator: idIterator("atmpt").optional(),
  with_msg: QueryBool.optional(),
  status_code_class: z
    .enum(["0", "100", "200", "300", "400", "500"], {
      error: "must be a status code class: 0, 100, 200, 300, 400 or 500",
    })
    .transform((v) => Number(v) as 0 | 100 | 200 | 300 | 400 | 500)
    .optional(),
});
type AttemptListQuery = z.output<typeof AttemptListQuery>;

/** A resend's answer: queued, with an empty body (as Svix answers). */
const RESENT: JsonAnswer = { status: 202, json: "{}" };

export function attemptRoutes(deps: ApiDeps): RouteDef[] {
  const { store, clock, engine, policyDefaults } = deps;
  const appPath = "/api/v1/app/{app_id}";

  /**
   * The page as far as its attempts' messages' payloads fit PAGE_PAYLOAD_BYTES, by their stored
   * sizes: the first attempt always, each message counted once per attempt that carries it (the
   * answer repeats it). A page cut short is not done: its iterator is its last attempt.
   */
  const withinPagePayloads = async (
    app: Application,
    page: Page<Attempt>,
  ): Promise<Page<Attempt>> => {
    const ids = [...new Set(page.data.map((a) => a.messageId))];
    const bytes = await store.messagePayloadBytes(app.id, ids);
    let sum = 0;
    let kept = 0;
    while (kept < page.data.length) {
      sum += bytes.get(page.data[kept]!.messageId) ?? 0;
      if (kept > 0 && sum > PAGE_PAYLOAD_BYTES) break;
      kept += 1;
    }
    if (kept === page.data.length) return page;
    const data = page.data.slice(0, kept);
    return { data, done: false, iterator: data[kept - 1]!.id };
  };

  /** One page of attempts as JSON text; with_msg adds each attempt's message. */
  const attemptPage = async (
    app: Application,
    filter: Pick<AttemptQuery, "endpointId" | "messageId">,
    query: AttemptListQuery,
  ): Promise<string> => {
    // Attempts are finished requests: none is ever pending, sending or canceled.
    const outcome = query.status === 0 ? "success" : query.status === 2 ? "fail" : undefined;
    let page: Page<Attempt> =
      query.status !== undefined && outcome === undefined
        ? { data: [], iterator: query.iterator ?? null, done: true }
        : await store.listAttempts({
            appId: app.id,
            ...filter,
            outcome,
            limit: query.limit,
            iterator: query.iterator,
            order: query.order,
            ...msBetween(query),
            statusCodeClass: query.status_code_class,
            eventTypes: query.event_types,
            channel: query.channel,
            tag: query.tag,
          });
    const withContent = query.with_content ?? true;
    const messages = new Map<string, Message | null>();
    if (query.with_msg) {
      // Each attempt carries its message's payload: bound the page by their sizes before reading.
      if (withContent) page = await withinPagePayloads(app, page);
      // The page's messages in one read: one per attempt cost a round trip each, 250 on a page.
      const ids = [...new Set(page.data.map((a) => a.messageId))];
      for (const m of await store.findMessages(app.id, ids, { withContent })) messages.set(m.id, m);
    }
    const items = page.data.map((a) =>
      attemptJson(a, { withContent, msg: messages.get(a.messageId) }),
    );
    return listJson(items, page);
  };

  return [
    defineRoute({
      method: "GET",
      path: `${appPath}/attempt/endpoint/{endpoint_id}`,
      operationId: "v1.message-attempt.list-by-endpoint",
      summary: "List the attempts made to an endpoint, newest first",
      tag: TAG,
      query: AttemptListQuery.superRefine(beforeLaterThanAfter),
      responses: {
        200: { description: "A page of attempts", schema: listOf(MessageAttemptOut) },
        ...notFound,
      },
      handler: async ({ params, query }) => {
        const app = await requireApp(store, params.app_id!);
        const ep = await requireEndpoint(store, app, params.endpoint_id!);
        return { status: 200, json: await attemptPage(app, { endpointId: ep.id }, query) };
      },
    }),
    defineRoute({
      method: "GET",
      path: `${appPath}/attempt/msg/{msg_id}`,
      operationId: "v1.message-attempt.list-by-msg",
      summary: "List the attempts made for a message, newest first",
      tag: TAG,
      query: AttemptListQuery.extend({
        endpoint_id: z.string().min(1).max(256).optional(),
      }).superRefine(beforeLaterThanAfter),
      responses: {
        200: { description: "A page of attempts", schema: listOf(MessageAttemptOut) },
        ...notFound,
      },
      handler: async ({ params, query }) => {
        const app = await requireApp(store, params.app_id!);
        const msg = await requireMessage(store, app, params.msg_id!);
        const ep = query.endpoint_id ? await requireEndpoint(store, app, query.endpoint_id) : null;
        const filter = { messageId: msg.id, endpointId: ep?.id };
        return { status: 200, json: await attemptPage(app, filter, query) };
      },
    }),
    defineRoute({
      method: "GET",
      path: `${appPath}/endpoint/{endpoint_id}/msg`,
      operationId: "v1.message-attempt.list-attempted-messages",
      summary:
        "The messages sent to an endpoint, newest first, each with where its latest delivery " +
        "there stands",
      tag: TAG,
      query: AttemptedQuery.superRefine(beforeLaterThanAfter),
      responses: {
        200: { description: "A page of messages", schema: listOf(EndpointMessageOut) },
        ...notFound,
      },
      handler: async ({ params, query }) => {
        const app = await requireApp(store, params.app_id!);
        const ep = await requireEndpoint(store, app, params.endpoint_id!);
        const state = query.status === undefined ? undefined : stateOf(query.status);
        const withContent = query.with_content ?? true;
        // hookline never cancels a delivery: nothing is ever canceled (4).
        const page =
          query.status !== undefined && state === undefined
            ? { data: [], iterator: query.iterator ?? null, done: true }
            : await store.listEndpointMessages({
                withContent,
                maxPayloadBytes: PAGE_PAYLOAD_BYTES,
                appId: app.id,
                endpointId: ep.id,
                state,
                limit: query.limit,
                iterator: query.iterator,
                order: query.order,
                ...msBetween(query),
                eventTypes: query.event_types,
                channel: query.channel,
                tag: query.tag,
              });
        // Its open circuit holds a waiting delivery past its own time (one read, the engine's
        // live circuit when it has one).
        const circuit = await circuitOf(deps, ep);
        const resolved = resolvePolicy(deps.policyDefaults, app.deliveryPolicy, ep.deliveryPolicy);
        const policy = () => resolved;
        const items = page.data.map((m) =>
          endpointMessageJson(m, withContent, ep, circuit, policy),
        );
        return { status: 200, json: listJson(items, page) };
      },
    }),
    defineRoute({
      method: "GET",
      path: `${appPath}/msg/{msg_id}/attempt/{attempt_id}`,
      operationId: "v1.message-attempt.get",
      summary: "Get one attempt",
      tag: TAG,
      query: z.object({ expanded_statuses: QueryBool.optional() }),
      responses: { 200: { description: "The attempt", schema: MessageAttemptOut }, ...notFound },
      handler: async ({ params }) => {
        const app = await requireApp(store, params.app_id!);
        const msg = await requireMessage(store, app, params.msg_id!);
        const attempt = await store.findAttempt(app.id, params.attempt_id!);
        if (!attempt || attempt.messageId !== msg.id) {
          throw new NotFoundError(`attempt ${params.attempt_id}`);
        }
        return { status: 200, json: attemptJson(attempt, { withContent: true }) };
      },
    }),
    defineRoute({
      method: "GET",
      path: `${appPath}/msg/{msg_id}/endpoint`,
      operationId: "v1.message-attempt.list-attempted-destinations",
      summary: "The endpoints a message is going to, with the state of its delivery to each",
      tag: TAG,
      query: listQueryOf("ep").pick({ limit: true, iterator: true }),
      responses: {
        200: { description: "A page of endpoints", schema: listOf(MessageEndpointOut) },
        ...notFound,
      },
      handler: async ({ params, query }) => {
        const app = await requireApp(store, params.app_id!);
        const msg = await requireMessage(store, app, params.msg_id!);
        // A resend adds a delivery to the same endpoint; the newest one tells where things stand.
        const latest = new Map<string, Delivery>();
        for (const d of await store.listDeliveries(msg.id)) {
          const seen = latest.get(d.endpointId);
          if (!seen || d.id > seen.id) latest.set(d.endpointId, d);
        }
        const endpointIds = [...latest.keys()]
          .sort()
          .filter((id) => !query.iterator || id > query.iterator);
        const chosen = endpointIds.slice(0, query.limit);
        // The page's endpoints and stored circuits in two reads, not one each per endpoint (a page
        // of 250 destinations read each endpoint on its own, at every refresh of a message's page).
        // The circuits alone: the answer has no stats, and reading them was a third of the work.
        // Why hookline gave up on the page's deliveries, read by those deliveries: reading the
        // message's records until the page's were found read every record of a message given up
        // at thousands of endpoints, at each page.
        const dead = chosen
          .map((id) => latest.get(id)!)
          .filter((d) => d.state === "dead")
          .map((d) => d.id);
        const [eps, stored, reasons] = await Promise.all([
          store.getEndpoints(chosen),
          store.getCircuits(chosen),
          dead.length ? store.deadLetterReasons(msg.id, dead) : new Map<string, string>(),
        ]);
        const byId = new Map(eps.map((ep) => [ep.id, ep]));
        const data = [];
        for (const id of chosen) {
          // An endpoint deleted since the deliveries were read is no destination any more.
          const ep = byId.get(id);
          if (!ep) continue;
          const circuit = circuitShown(deps, ep, stored.get(id));
          const d = latest.get(id)!;
          const policy = () => resolvePolicy(policyDefaults, app.deliveryPolicy, ep.deliveryPolicy);
          const ends = endsUnsent(d, ep, circuit, policy);
          data.push(messageEndpointOut(ep, circuit, d, reasons.get(d.id) ?? null, ends));
        }
        const iterator = chosen.at(-1) ?? query.iterator ?? null;
        return {
          status: 200,
          body: listAnswer({ data, iterator, done: endpointIds.length <= query.limit }),
        };
      },
    }),
    defineRoute({
      method: "POST",
      path: `${appPath}/msg/{msg_id}/endpoint/{endpoint_id}/resend`,
      operationId: "v1.message-attempt.resend",
      summary:
        "Send a message to an endpoint again, now: its delivery there that waits for a retry goes now, or else a new one with manual attempts",
      tag: TAG,
      responses: {
        202: { description: "Queued", schema: z.object({}) },
        ...notFound,
        409: { description: "The endpoint is disabled", schema: HttpError },
      },
      handler: async ({ request, params }) => {
        const app = await requireApp(store, params.app_id!);
        const msg = await requireMessage(store, app, params.msg_id!);
        const ep = await requireEndpoint(store, app, params.endpoint_id!);
        // hookline sends a disabled endpoint nothing: the resend would only be dead-lettered.
        if (ep.disabled) {
          const why = ep.disabledReason ? ` (${ep.disabledReason})` : "";
          throw new ConflictError(
            `endpoint ${ep.id} is disabled${why}; enable it before resending`,
          );
        }
        const now = clock.now();
        // A keyed resend keeps its answer in its own transaction: kept after it, an answer that
        // failed to be kept let a retry resend, and the customer receive the message once more.
        const keyed = answerInWrite(request, (resent: Delivery | null) => (resent ? RESENT : null));
        const resend = await store.enqueueResend({
          id: newId("dlv", now),
          appId: app.id,
          messageId: msg.id,
          endpointId: ep.id,
          now,
          keyAnswer: keyed?.keyAnswer,
        });
        // Retention took the message, or a deletion the endpoint, after they were read above.
        if (!resend) {
          throw new NotFoundError(`message ${params.msg_id} or endpoint ${params.endpoint_id}`);
        }
        engine.wake(now);
        return keyed?.kept() ?? RESENT;
      },
    }),
  ];
}
