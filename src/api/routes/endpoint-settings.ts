/** An endpoint's signing secret and custom headers: …/endpoint/{endpoint_id}/secret and …/headers. */
import { ValidationError } from "../../errors.js";
import type { ApiDeps } from "../deps.js";
import { probeSoonerAfterChange, sendsOtherHeaders } from "../probe-sooner.js";
import { changeEndpoint, RACED } from "../stored-change.js";
import { requireApp, requireChangeableEndpoint, requireEndpoint } from "../lookup.js";
import { defineRoute, noContent, ok, type RouteDef } from "../route.js";
import { HttpError, HttpValidationError } from "../schemas/common.js";
import {
  EndpointHeadersIn,
  EndpointHeadersOut,
  EndpointHeadersPatchIn,
  EndpointSecretOut,
  EndpointSecretRotateIn,
  headersOut,
  MAX_CUSTOM_HEADERS,
  secretOut,
} from "../schemas/endpoint.js";
import { GRACE_FULL, rotateSecret } from "../secret-rotation.js";

const TAG = "Endpoint";
const errors = {
  404: { description: "No such application or endpoint", schema: HttpError },
  409: { description: `The application is hookline's own, or: ${RACED}`, schema: HttpError },
  422: { description: "Invalid input", schema: HttpValidationError },
};

export function endpointSettingsRoutes(deps: ApiDeps): RouteDef[] {
  const { store, engine } = deps;
  const base = "/api/v1/app/{app_id}/endpoint/{endpoint_id}";
  const load = async (params: Record<string, string>) => {
    const app = await requireApp(store, params.app_id!);
    return requireEndpoint(store, app, params.endpoint_id!);
  };
  return [
    defineRoute({
      method: "GET",
      path: `${base}/secret`,
      operationId: "v1.endpoint.get-secret",
      summary:
        "Get the endpoint's current signing secret, and until when those it replaced still sign",
      tag: TAG,
      responses: {
        200: { description: "The secret", schema: EndpointSecretOut },
        404: errors[404],
      },
      handler: async ({ params }) => ok(secretOut((await load(params)).secrets, deps.clock.now())),
    }),
    defineRoute({
      method: "POST",
      path: `${base}/secret/rotate`,
      operationId: "v1.endpoint.rotate-secret",
      summary:
        "Replace the signing secret; the old one keeps signing for the grace period " +
        "(gracePeriodSeconds, default HOOKLINE_SECRET_GRACE_SECONDS)",
      tag: TAG,
      body: EndpointSecretRotateIn,
      responses: {
        204: { description: "Rotated" },
        ...errors,
        409: {
          description: `The application is hookline's own, ${GRACE_FULL}, or: ${RACED}`,
          schema: HttpError,
        },
      },
      handler: async ({ params, body }) => {
        const after = await rotateSecret(
          deps,
          () => requireChangeableEndpoint(store, params),
          body,
        );
        engine.invalidateEndpoint(after.id);
        return noContent();
      },
    }),
    defineRoute({
      method: "GET",
      path: `${base}/headers`,
      operationId: "v1.endpoint.get-headers",
      summary: "Get the custom headers sent with every request to the endpoint",
      tag: TAG,
      responses: {
        200: { description: "The headers", schema: EndpointHeadersOut },
        404: errors[404],
      },
      handler: async ({ params }) => ok(headersOut((await load(params)).headers)),
    }),
    defineRoute({
      method: "PUT",
      path: `${base}/headers`,
      operationId: "v1.endpoint.update-headers",
      summary: "Replace the endpoint's custom headers",
      tag: TAG,
      body: EndpointHeadersIn,
      responses: { 204: { description: "Replaced" }, ...errors },
      handler: async ({ params, body }) => {
        const { before, after } = await changeEndpoint(
          deps,
          () => requireChangeableEndpoint(store, params),
          (ep, at) => ({
            ...ep,
            headers: body.headers,
            updatedAt: at,
          }),
        );
        engine.invalidateEndpoint(after.id);
        if (sendsOtherHeaders(before.headers, after.headers)) {
          await probeSoonerAfterChange(deps, after);
        }
        return noContent();
      },
    }),
    defineRoute({
      method: "PATCH",
      path: `${base}/headers`,
      operationId: "v1.endpoint.patch-headers",
      summary: "Set some custom headers (a null value or deleteHeaders removes one)",
      tag: TAG,
      body: EndpointHeadersPatchIn,
      responses: { 204: { description: "Changed" }, ...errors },
      handler: async ({ params, body }) => {
        const { before, after } = await changeEndpoint(
          deps,
          () => requireChangeableEndpoint(store, params),
          (ep, at) => {
            const headers = { ...ep.headers };
            // Header names are case-insensitive: a change replaces any spelling of the same name.
            const drop = (name: string) => {
              for (const existing of Object.keys(headers)) {
                if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
              }
            };
            for (const name of body.deleteHeaders ?? []) drop(name);
            for (const [name, value] of Object.entries(body.headers)) {
              drop(name);
              if (value !== null) headers[name] = value;
            }
            // The body was checked on its own; the limit is on what the endpoint ends up with.
            const count = Object.keys(headers).length;
            if (count > MAX_CUSTOM_HEADERS) {
              throw new ValidationError([
                {
                  loc: ["body", "headers"],
                  msg: `at most ${MAX_CUSTOM_HEADERS} headers; the endpoint would have ${count}`,
                  type: "too_big",
                },
              ]);
            }
            return { ...ep, headers, updatedAt: at };
          },
        );
        engine.invalidateEndpoint(after.id);
        if (sendsOtherHeaders(before.headers, after.headers)) {
          await probeSoonerAfterChange(deps, after);
        }
        return noContent();
      },
    }),
  ];
}
