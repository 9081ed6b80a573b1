/**
 * Svix's operational webhook endpoints (/api/v1/operational-webhook/endpoint): where hookline
 * sends its own events. They are the endpoints of hookline's operational application.
 */
import type { Application, Endpoint } from "../../domain/types.js";
import { ValidationError, type FieldProblem } from "../../errors.js";
import { OPERATIONAL_EVENT_TYPES } from "../../observability/operational-webhooks.js";
import { endpointsDeleted } from "../../engine/endpoints-deleted.js";
import type { ApiDeps } from "../deps.js";
import { probeSoonerAfterChange, sendsOtherHeaders } from "../probe-sooner.js";
import { changeEndpoint, RACED } from "../stored-change.js";
import { endpointBase } from "../endpoint-view.js";
import { requireEndpoint } from "../lookup.js";
import { uidOfPut } from "../put-or-create.js";
import { defineRoute, noContent, ok, type RouteDef } from "../route.js";
import { HttpError, HttpValidationError, listAnswer, listOf } from "../schemas/common.js";
import {
  EndpointHeadersIn,
  EndpointHeadersOut,
  EndpointSecretOut,
  EndpointSecretRotateIn,
  headersOut,
  secretOut,
} from "../schemas/endpoint.js";
import { answerInWrite, endpointKeys, namesOf } from "../idempotency.js";
import {
  OperationalEndpointIn,
  OperationalEndpointOut,
  OperationalEndpointUpdate,
} from "../schemas/observability.js";
import { GRACE_FULL, rotateSecret } from "../secret-rotation.js";
import { listQueryOf } from "../validation.js";
import { assertTargetAllowed, newEndpoint, replacedSettings } from "./endpoints.js";
import { observabilityOf } from "./observability.js";

const TAG = "Operational webhooks";
const errors = {
  404: { description: "No such operational webhook endpoint", schema: HttpError },
  409: { description: `The uid is taken; for a change, or: ${RACED}`, schema: HttpError },
  422: { description: "Invalid input", schema: HttpValidationError },
};
const tooManyInGrace = { description: `${GRACE_FULL}, or: ${RACED}`, schema: HttpError };

const KNOWN = new Set<string>(OPERATIONAL_EVENT_TYPES);

/** Refuses event types hookline never sends, naming each. */
function checkFilterTypes(types: readonly string[] | null | undefined): void {
  const problems: FieldProblem[] = [];
  (types ?? []).forEach((t, i) => {
    if (!KNOWN.has(t)) {
      problems.push({
        loc: ["body", "filterTypes", i],
        msg: `"${t}" is not an operational event (${OPERATIONAL_EVENT_TYPES.join(", ")})`,
        type: "unknown_event_type",
      });
    }
  });
  if (problems.length) throw new ValidationError(problems);
}

const view = (ep: Endpoint) => {
  const all = endpointBase(ep);
  return {
    id: all.id,
    uid: all.uid,
    url: all.url,
    description: all.description,
    disabled: all.disabled,
    filterTypes: all.filterTypes,
    rateLimit: all.rateLimit,
    throttleRate: all.throttleRate,
    metadata: all.metadata,
    createdAt: all.createdAt,
    updatedAt: all.updatedAt,
  };
};

export function operationalWebhookRoutes(deps: ApiDeps): RouteDef[] {
  const base = "/api/v1/operational-webhook/endpoint";
  const app = (): Promise<Application> => observabilityOf(deps).operational.application();
  const changed = () => observabilityOf(deps).operational.endpointsChanged();
  const find = async (id: string) => requireEndpoint(deps.store, await app(), id);
  return [
    defineRoute({
      method: "GET",
      path: base,
      operationId: "v1.operational-webhook.endpoint.list",
      summary: "List operational webhook endpoints, newest first unless `order=ascending`",
      tag: TAG,
      query: listQueryOf("ep"),
      responses: { 200: { description: "A page", schema: listOf(OperationalEndpointOut) } },
      handler: async ({ query }) => {
        // Newest first, as an application's endpoints are listed (endpoints.ts).
        const order = query.order ?? "descending";
        const page = await deps.store.listEndpoints((await app()).id, { ...query, order });
        return ok(listAnswer({ ...page, data: page.data.map(view) }));
      },
    }),
    defineRoute({
      method: "POST",
      path: base,
      operationId: "v1.operational-webhook.endpoint.create",
      summary: "Register an endpoint for hookline's own events",
      tag: TAG,
      body: OperationalEndpointIn,
      responses: { 201: { description: "Created", schema: OperationalEndpointOut }, ...errors },
      handler: async ({ request, body }) => {
        checkFilterTypes(body.filterTypes);
        await assertTargetAllowed(deps, body.url);
        const owner = await app();
        const ep = newEndpoint(owner.id, body, deps.clock.now());
        // Kept in the endpoint's transaction, as an application's endpoint's (endpoints.ts).
        const answer = (made: Endpoint) => ({ status: 201, json: JSON.stringify(view(made)) });
        const keyed = answerInWrite(request, answer);
        await deps.store.createEndpoint(ep, keyed?.keyAnswer);
        changed();
        return keyed?.kept() ?? answer(ep);
      },
    }),
    defineRoute({
      method: "GET",
      path: `${base}/{endpoint_id}`,
      operationId: "v1.operational-webhook.endpoint.get",
      summary: "Get an operational webhook endpoint",
      tag: TAG,
      responses: {
        200: { description: "The endpoint", schema: OperationalEndpointOut },
        404: errors[404],
      },
      handler: async ({ params }) => ok(view(await find(params.endpoint_id!))),
    }),
    defineRoute({
      method: "PUT",
      path: `${base}/{endpoint_id}`,
      operationId: "v1.operational-webhook.endpoint.update",
      summary:
        "Replace an operational webhook endpoint's settings (its secret and headers are kept: " +
        "others sent are refused); a body without a uid keeps the path's, unless the path is an " +
        "ep_ id",
      tag: TAG,
      body: OperationalEndpointUpdate,
      responses: { 200: { description: "Updated", schema: OperationalEndpointOut }, ...errors },
      handler: async ({ params, body }) => {
        checkFilterTypes(body.filterTypes);
        const path = params.endpoint_id!;
        // As an application's endpoint: one updated by its uid keeps it, so the next call by the
        // same uid finds it (and a create with that uid is still refused as taken).
        const input = { ...body, uid: uidOfPut(path, "ep", body.uid) };
        // It has no PATCH of its headers.
        const calls = { path: `${base}/${path}`, patchHeaders: false };
        const { before, after: next } = await changeEndpoint(
          deps,
          () => find(path),
          (ep, at) => replacedSettings(deps, ep, input, at, calls),
          null,
        );
        deps.engine.invalidateEndpoint(next.id);
        if (next.url !== before.url) await probeSoonerAfterChange(deps, next);
        return ok(view(next));
      },
    }),
    defineRoute({
      method: "DELETE",
      path: `${base}/{endpoint_id}`,
      operationId: "v1.operational-webhook.endpoint.delete",
      summary: "Delete an operational webhook endpoint",
      tag: TAG,
      responses: { 204: { description: "Deleted" }, 404: errors[404] },
      handler: async ({ params }) => {
        const ep = await find(params.endpoint_id!);
        const forget = endpointKeys(null, namesOf(ep), deps.clock.now());
        await deps.store.deleteEndpoint(ep.appId, ep.id, forget);
        endpointsDeleted(deps, [ep.id]);
        changed();
        return noContent();
      },
    }),
    defineRoute({
      method: "GET",
      path: `${base}/{endpoint_id}/secret`,
      operationId: "v1.operational-webhook.endpoint.get-secret",
      summary: "Get an operational webhook endpoint's signing secret",
      tag: TAG,
      responses: {
        200: { description: "The secret", schema: EndpointSecretOut },
        404: errors[404],
      },
      handler: async ({ params }) =>
        ok(secretOut((await find(params.endpoint_id!)).secrets, deps.clock.now())),
    }),
    defineRoute({
      method: "POST",
      path: `${base}/{endpoint_id}/secret/rotate`,
      operationId: "v1.operational-webhook.endpoint.rotate-secret",
      summary: "Rotate an operational webhook endpoint's signing secret",
      tag: TAG,
      body: EndpointSecretRotateIn,
      responses: { 204: { description: "Rotated" }, ...errors, 409: tooManyInGrace },
      handler: async ({ params, body }) => {
        const after = await rotateSecret(deps, () => find(params.endpoint_id!), body);
        deps.engine.invalidateEndpoint(after.id);
        return noContent();
      },
    }),
    defineRoute({
      method: "GET",
      path: `${base}/{endpoint_id}/headers`,
      operationId: "v1.operational-webhook.endpoint.get-headers",
      summary: "Get the custom headers sent with every operational webhook to the endpoint",
      tag: TAG,
      responses: {
        200: { description: "The headers", schema: EndpointHeadersOut },
        404: errors[404],
      },
      handler: async ({ params }) => ok(headersOut((await find(params.endpoint_id!)).headers)),
    }),
    defineRoute({
      method: "PUT",
      path: `${base}/{endpoint_id}/headers`,
      operationId: "v1.operational-webhook.endpoint.update-headers",
      summary: "Replace an operational webhook endpoint's custom headers",
      tag: TAG,
      body: EndpointHeadersIn,
      responses: { 204: { description: "Replaced" }, ...errors },
      handler: async ({ params, body }) => {
        const { before, after } = await changeEndpoint(
          deps,
          () => find(params.endpoint_id!),
          (ep, at) => ({ ...ep, headers: body.headers, updatedAt: at }),
        );
        deps.engine.invalidateEndpoint(after.id);
        // As an application's endpoint: the header its receiver asked for is tried at once.
        if (sendsOtherHeaders(before.headers, after.headers)) {
          await probeSoonerAfterChange(deps, after);
        }
        return noContent();
      },
    }),
  ];
}
