/** Svix endpoints: /api/v1/app/{app_id}/endpoint. */
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import type { Application, Endpoint } from "../../domain/types.js";
import { checkTarget } from "../../engine/targets.js";
import { ValidationError, type FieldProblem } from "../../errors.js";
import { newId } from "../../ids.js";
import { generateSecret } from "../../signing/secret.js";
import { endpointsDeleted } from "../../engine/endpoints-deleted.js";
import type { ApiDeps } from "../deps.js";
import { probeSoonerAfterChange } from "../probe-sooner.js";
import { changeEndpoint, RACED } from "../stored-change.js";
import { endpointView, endpointViews, newEndpointView } from "../endpoint-view.js";
import { answerInWrite, endpointKeys, namesOf } from "../idempotency.js";
import { notKeptProblems, type OwnCalls } from "../kept-by-update.js";
import { isLater, isNamedTime, msSinceUntil } from "../named-time.js";
import { requireApp, requireChangeableApp, requireEndpoint } from "../lookup.js";
import { uidOfPut, updateOrCreate } from "../put-or-create.js";
import { defineRoute, noContent, ok, type Answer, type RouteDef } from "../route.js";
import { rateLimitOf } from "../schemas/application.js";
import { HttpError, HttpValidationError, listAnswer, listOf } from "../schemas/common.js";
import {
  EndpointIn,
  EndpointOut,
  type EndpointInput,
  EndpointPatch,
  EndpointStats,
  EndpointUpdate,
} from "../schemas/endpoint.js";
import { GRACE_FULL, rotated } from "../secret-rotation.js";
import { listQueryOf, QueryTime } from "../validation.js";

const TAG = "Endpoint";
/**
 * The stats' window when the caller names no start: the day before `until` (or now). Counting
 * walks every message of the window, so a window without a start grew with all of history.
 */
const STATS_WINDOW_MS = 24 * 60 * 60 * 1000;
/**
 * Where the stats stop counting the deliveries waiting now: an outage's backlog may be millions,
 * and a count reads each one (on SQLite, on the main thread); this many is read in a few ms.
 */
export const PENDING_NOW_BOUND = 10_000;
const errors = {
  404: { description: "No such application or endpoint", schema: HttpError },
  409: {
    description: `The uid is taken; the application is hookline's own; for a change, or: ${RACED}`,
    schema: HttpError,
  },
  422: { description: "Invalid input", schema: HttpValidationError },
};

/** Why hookline must not send to `url` (SSRF), as a problem on body.url, or null. */
async function targetProblem(deps: ApiDeps, url: string): Promise<FieldProblem | null> {
  const reason = await checkTarget(new URL(url), {
    allowPrivateTargets: deps.config.allowPrivateTargets,
  });
  return reason ? { loc: ["body", "url"], msg: reason, type: "url_refused" } : null;
}

/** Refuses a URL hookline must not send to (SSRF), as a 422 on body.url. */
export async function assertTargetAllowed(deps: ApiDeps, url: string): Promise<void> {
  const problem = await targetProblem(deps, url);
  if (problem) throw new ValidationError([problem]);
}

/**
 * Refuses, in one 422, what an update of `ep` sends that it must not take: a new URL hookline
 * must not send to, and a secret or headers other than its own (see kept-by-update.ts).
 */
async function assertUpdateAllowed(
  deps: ApiDeps,
  ep: Endpoint,
  body: Parameters<typeof notKeptProblems>[1] & { url?: string },
  calls: OwnCalls,
): Promise<void> {
  const problems = [
    ...(body.url === undefined || body.url === ep.url ? [] : [await targetProblem(deps, body.url)]),
    ...notKeptProblems(ep, body, calls),
  ].filter((p) => p !== null);
  if (problems.length) throw new ValidationError(problems);
}

// An endpoint disabled by hookline (e.g. after a 410) keeps its reason only while it stays disabled.
const reasonAfter = (ep: Endpoint, disabled: boolean): string | null =>
  disabled && ep.disabled ? ep.disabledReason : null;

/**
 * A new endpoint of `appId` from what any create takes, an application's or an operational
 * webhook one: version 1, no channels and no delivery policy unless the caller sets them after.
 * The URL is checked by the caller, in the order its errors are reported.
 */
export function newEndpoint(
  appId: string,
  body: z.infer<typeof EndpointIn>,
  now: number,
): Endpoint {
  return {
    id: newId("ep", now),
    appId,
    uid: body.uid ?? null,
    url: body.url,
    description: body.description ?? "",
    version: 1,
    disabled: body.disabled ?? false,
    disabledReason: null,
    filterTypes: body.filterTypes?.length ? body.filterTypes : null,
    channels: null,
    headers: body.headers ?? {},
    metadata: body.metadata ?? {},
    rateLimit: rateLimitOf(body) ?? null,
    secrets: { current: body.secret ?? generateSecret(), previous: [] },
    deliveryPolicy: null,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * What a PUT replaces on any endpoint, an application's or an operational webhook one: the
 * settings both take, with a new URL checked first. Its secret and headers are kept: the body may
 * only send them back as they are (see kept-by-update.ts); `calls` says what changes them.
 */
export async function replacedSettings(
  deps: ApiDeps,
  ep: Endpoint,
  body: z.infer<typeof EndpointUpdate>,
  at: number,
  calls: OwnCalls,
): Promise<Endpoint> {
  await assertUpdateAllowed(deps, ep, body, calls);
  const disabled = body.disabled ?? false;
  return {
    ...ep,
    uid: body.uid ?? null,
    url: body.url,
    description: body.description ?? "",
    disabled,
    disabledReason: reasonAfter(ep, disabled),
    filterTypes: body.filterTypes?.length ? body.filterTypes : null,
    metadata: body.metadata ?? {},
    rateLimit: rateLimitOf(body, ep.rateLimit) ?? null,
    updatedAt: at,
  };
}

export function endpointRoutes(deps: ApiDeps): RouteDef[] {
  const { store, clock, engine } = deps;
  /** Stores a change; an endpoint someone disables is announced (operational webhooks). */
  const save = async (
    app: Application,
    read: () => Promise<Endpoint>,
    change: (ep: Endpoint, updatedAt: number) => Promise<Endpoint>,
  ): Promise<Endpoint> => {
    const { before, after: next } = await changeEndpoint(deps, read, change, app);
    engine.invalidateEndpoint(next.id);
    if (next.url !== before.url) await probeSoonerAfterChange(deps, next);
    if (next.disabled && !before.disabled) {
      // Its replays held for its circuit's probe came due with it (the store), to end unsent.
      engine.wake(next.updatedAt);
      deps.events?.emit({
        type: "endpoint.disabled",
        endpointId: next.id,
        reason: "disabled through the API",
        trigger: "manual",
      });
    }
    return next;
  };
  /**
   * A new endpoint of `app`, its URL checked first: what a POST makes, and a PUT naming none. A
   * keyed POST's answer is kept in the endpoint's own transaction: kept after it, an answer that
   * failed to be kept let a retry make a second endpoint, and every message go to the URL twice.
   */
  const create = async (
    request: FastifyRequest,
    app: Application,
    body: EndpointInput,
  ): Promise<Answer> => {
    await assertTargetAllowed(deps, body.url);
    const ep: Endpoint = {
      ...newEndpoint(app.id, body, clock.now()),
      version: body.version ?? 1,
      channels: body.channels?.length ? body.channels : null,
      deliveryPolicy: body.deliveryPolicy ?? null,
    };
    const answer = (made: Endpoint) => ({
      status: 201,
      json: JSON.stringify(newEndpointView(deps, app, made)),
    });
    const keyed = answerInWrite(request, answer);
    await store.createEndpoint(ep, keyed?.keyAnswer);
    return keyed?.kept() ?? answer(ep);
  };
  const base = "/api/v1/app/{app_id}/endpoint";
  return [
    defineRoute({
      method: "GET",
      path: base,
      operationId: "v1.endpoint.list",
      summary: "List an application's endpoints, newest first unless `order=ascending`",
      tag: TAG,
      query: listQueryOf("ep"),
      responses: { 200: { description: "A page of endpoints", schema: listOf(EndpointOut) } },
      handler: async ({ params, query }) => {
        const app = await requireApp(store, params.app_id!);
        // Newest first by default, as Svix lists endpoints (its applications stay oldest first).
        const order = query.order ?? "descending";
        const page = await store.listEndpoints(app.id, { ...query, order });
        const data = await endpointViews(deps, app, page.data);
        return ok(listAnswer({ ...page, data }));
      },
    }),
    defineRoute({
      method: "POST",
      path: base,
      operationId: "v1.endpoint.create",
      summary: "Create an endpoint",
      tag: TAG,
      body: EndpointIn,
      responses: { 201: { description: "Created", schema: EndpointOut }, ...errors },
      handler: async ({ request, params, body }) =>
        create(request, await requireChangeableApp(store, params.app_id!), body),
    }),
    defineRoute({
      method: "GET",
      path: `${base}/{endpoint_id}`,
      operationId: "v1.endpoint.get",
      summary: "Get an endpoint by id or uid",
      tag: TAG,
      responses: { 200: { description: "The endpoint", schema: EndpointOut }, 404: errors[404] },
      handler: async ({ params }) => {
        const app = await requireApp(store, params.app_id!);
        const ep = await requireEndpoint(store, app, params.endpoint_id!);
        return ok(await endpointView(deps, app, ep));
      },
    }),
    defineRoute({
      method: "PUT",
      path: `${base}/{endpoint_id}`,
      operationId: "v1.endpoint.update",
      summary:
        "Replace an endpoint's settings (its secret and headers are kept: others sent are " +
        "refused), or create it as a POST would, with the body's secret and headers (201), when " +
        "none has this id or uid; a body without a uid keeps the path's, unless the path is an " +
        "ep_ id",
      tag: TAG,
      body: EndpointUpdate,
      responses: {
        200: { description: "The updated endpoint", schema: EndpointOut },
        201: { description: "Created: no endpoint had this id or uid", schema: EndpointOut },
        ...errors,
      },
      handler: async ({ request, params, body }) => {
        const app = await requireChangeableApp(store, params.app_id!);
        const path = params.endpoint_id!;
        const input = { ...body, uid: uidOfPut(path, "ep", body.uid) };
        const calls = { path: `/api/v1/app/${params.app_id}/endpoint/${path}`, patchHeaders: true };
        const update = async () => {
          const next = await save(
            app,
            () => requireEndpoint(store, app, path),
            async (ep, at) => ({
              ...(await replacedSettings(deps, ep, input, at, calls)),
              version: input.version ?? 1,
              channels: input.channels?.length ? input.channels : null,
              // Svix clients do not know this field; a PUT without it keeps the policy.
              deliveryPolicy:
                input.deliveryPolicy === undefined ? ep.deliveryPolicy : input.deliveryPolicy,
            }),
          );
          return ok(await endpointView(deps, app, next));
        };
        return updateOrCreate(
          async () => (await store.findEndpoint(app.id, path)) !== null,
          update,
          // The body's secret and headers too, as a POST's: a secret of its own only without one.
          () => create(request, app, input),
        );
      },
    }),
    defineRoute({
      method: "PATCH",
      path: `${base}/{endpoint_id}`,
      operationId: "v1.endpoint.patch",
      summary: "Change some of an endpoint's settings",
      tag: TAG,
      body: EndpointPatch,
      responses: {
        200: { description: "The updated endpoint", schema: EndpointOut },
        ...errors,
        409: {
          description:
            `The uid is taken, the application is hookline's own, or a new secret finds ` +
            `${GRACE_FULL}, or: ${RACED}`,
          schema: HttpError,
        },
      },
      handler: async ({ params, body }) => {
        const app = await requireChangeableApp(store, params.app_id!);
        const calls = {
          path: `/api/v1/app/${params.app_id}/endpoint/${params.endpoint_id}`,
          patchHeaders: true,
        };
        const keep = <T>(sent: T | undefined, current: T): T =>
          sent === undefined ? current : sent;
        const list = (sent: string[] | null | undefined, current: string[] | null) =>
          sent === undefined ? current : sent?.length ? sent : null;
        const next = await save(
          app,
          () => requireEndpoint(store, app, params.endpoint_id!),
          async (ep, at) => {
            // Its secret is a rotation (below), as in Svix; its headers have calls of their own.
            await assertUpdateAllowed(deps, ep, { url: body.url, headers: body.headers }, calls);
            const disabled = body.disabled ?? ep.disabled;
            return {
              ...ep,
              uid: keep(body.uid, ep.uid),
              url: body.url ?? ep.url,
              description: body.description ?? ep.description,
              version: body.version ?? ep.version,
              disabled,
              disabledReason: reasonAfter(ep, disabled),
              filterTypes: list(body.filterTypes, ep.filterTypes),
              channels: list(body.channels, ep.channels),
              metadata: body.metadata ?? ep.metadata,
              rateLimit: keep(rateLimitOf(body, ep.rateLimit), ep.rateLimit),
              // A new secret is a rotation: receivers still verify with the old one for the grace period.
              secrets:
                body.secret && body.secret !== ep.secrets.current
                  ? rotated(ep.secrets, body.secret, at, deps.config.secretGraceMs)
                  : ep.secrets,
              deliveryPolicy: keep(body.deliveryPolicy, ep.deliveryPolicy),
              updatedAt: at,
            };
          },
        );
        return ok(await endpointView(deps, app, next));
      },
    }),
    defineRoute({
      method: "GET",
      path: `${base}/{endpoint_id}/stats`,
      operationId: "v1.endpoint.get-stats",
      summary:
        "How many of the messages sent to the endpoint stand in each status (each counted once, " +
        "by its latest delivery), of those created from `since` (by default 24 hours before " +
        "`until` or now) to before `until`; and hookline's `pendingNow`, the deliveries waiting " +
        "now whatever their age",
      tag: TAG,
      // A window the wrong way round is a mistake, answered as recover answers it.
      query: z
        .object({ since: QueryTime.optional(), until: QueryTime.optional() })
        .refine(
          (q) => !isNamedTime(q.since) || !isNamedTime(q.until) || isLater(q.until, q.since),
          {
            path: ["until"],
            message: "must be later than since",
          },
        ),
      responses: { 200: { description: "The counts", schema: EndpointStats }, ...errors },
      handler: async ({ params, query }) => {
        const app = await requireApp(store, params.app_id!);
        const ep = await requireEndpoint(store, app, params.endpoint_id!);
        // Without `until`, no end: a message another process made a moment ahead of this clock
        // is still counted.
        const window = msSinceUntil(query);
        const since = window.since ?? (window.until ?? clock.now()) - STATS_WINDOW_MS;
        const [n, waiting] = await Promise.all([
          store.endpointMessageStates({
            appId: app.id,
            endpointId: ep.id,
            since,
            until: window.until,
          }),
          store.countWaitingDeliveries(ep.id, PENDING_NOW_BOUND),
        ]);
        // hookline never cancels a message's delivery.
        return ok({
          success: n.succeeded,
          pending: n.pending,
          sending: n.inflight,
          fail: n.dead,
          canceled: 0,
          pendingNow: {
            count: waiting,
            orMore: waiting >= PENDING_NOW_BOUND,
            upTo: PENDING_NOW_BOUND,
          },
        });
      },
    }),
    defineRoute({
      method: "DELETE",
      path: `${base}/{endpoint_id}`,
      operationId: "v1.endpoint.delete",
      summary: "Delete an endpoint with its pending deliveries and attempts",
      tag: TAG,
      responses: { 204: { description: "Deleted" }, 404: errors[404], 409: errors[409] },
      handler: async ({ params }) => {
        const app = await requireChangeableApp(store, params.app_id!);
        const ep = await requireEndpoint(store, app, params.endpoint_id!);
        await store.deleteEndpoint(app.id, ep.id, endpointKeys(app, namesOf(ep), clock.now()));
        endpointsDeleted(deps, [ep.id]);
        return noContent();
      },
    }),
  ];
}
