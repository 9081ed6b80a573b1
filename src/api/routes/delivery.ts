/**
 * hookline's additions to the Svix API about how deliveries behave: an endpoint's circuit breaker,
 * its resolved retry schedule, and the delivery policies of endpoints and applications.
 */
import { z } from "zod";
import { publishSchedule } from "../../engine/ladder.js";
import { resolvePolicy } from "../../engine/policy.js";
import {
  RETRY_AFTER_CAP_MS,
  RETRY_AFTER_HONOUR_MAX_MS,
  RETRY_AFTER_IGNORE_ABOVE_MS,
} from "../../engine/retry-after.js";
import type { ApiDeps } from "../deps.js";
import { changeApplication, changeEndpoint, RACED } from "../stored-change.js";
import { circuitOf, circuitOut } from "../endpoint-view.js";
import {
  requireApp,
  requireChangeableApp,
  requireChangeableEndpoint,
  requireEndpoint,
} from "../lookup.js";
import { defineRoute, ok, type RouteDef } from "../route.js";
import { HttpError, HttpValidationError, Timestamp, iso } from "../schemas/common.js";
import { CircuitState } from "../schemas/endpoint.js";
import { DeliveryPolicyDoc, PolicyBody } from "../schemas/policy.js";

const TAG = "Delivery (hookline)";
const TRANSITIONS_SHOWN = 50;
const errors = {
  404: { description: "No such application or endpoint", schema: HttpError },
  422: { description: "Invalid policy", schema: HttpValidationError },
};

const CircuitOut = z.object({
  state: CircuitState,
  since: Timestamp,
  reason: z.string().nullable(),
  nextProbeAt: Timestamp.nullable(),
  reopenCount: z.int(),
  openedAt: Timestamp.nullable().describe(
    "When the circuit opened from closed, which its reopenings (each moving `since` on) and " +
      "half-open trials leave as it was: since when the endpoint has been failing. Null while " +
      "closed, and for a circuit opened before hookline kept it whose opening is pruned",
  ),
  transitions: z.array(
    z.object({ from: CircuitState, to: CircuitState, at: Timestamp, reason: z.string() }),
  ),
});

const RetryScheduleOut = z.object({
  preset: z.string(),
  attempts: z.int(),
  windowSeconds: z.number(),
  maxDelaySeconds: z.number(),
  jitter: z.object({ strategy: z.string(), ratio: z.number().optional() }),
  retries: z.array(
    z.object({
      attempt: z.int(),
      nominalDelaySeconds: z.number(),
      minDelaySeconds: z.number(),
      maxDelaySeconds: z.number(),
      nominalOffsetSeconds: z.number(),
    }),
  ),
  description: z.string(),
  source: z.enum(["default", "application", "endpoint"]),
  retryAfter: z.object({
    honouredBelowSeconds: z.number(),
    cappedToSeconds: z.number(),
    ignoredAboveSeconds: z.number(),
  }),
  permanent: z
    .object({
      statuses: z.array(z.int()),
      source: z.enum(["default", "application", "endpoint"]),
    })
    .describe(
      "The statuses given up on at once, not retried (ascending, 410 always among them), and " +
        "which policy set them",
    ),
});

const RETRY_AFTER_RULES = {
  honouredBelowSeconds: RETRY_AFTER_HONOUR_MAX_MS / 1000,
  cappedToSeconds: RETRY_AFTER_CAP_MS / 1000,
  ignoredAboveSeconds: RETRY_AFTER_IGNORE_ABOVE_MS / 1000,
};

export function deliveryRoutes(deps: ApiDeps): RouteDef[] {
  const { store, engine } = deps;
  const appPath = "/api/v1/app/{app_id}";
  const epPath = `${appPath}/endpoint/{endpoint_id}`;
  const load = async (params: Record<string, string>) => {
    const app = await requireApp(store, params.app_id!);
    return { app, ep: await requireEndpoint(store, app, params.endpoint_id!) };
  };
  const common = { tag: TAG, extension: true };
  return [
    defineRoute({
      ...common,
      method: "GET",
      path: `${epPath}/circuit`,
      operationId: "hookline.endpoint.circuit",
      summary: "The endpoint's circuit breaker and its latest transitions, newest first",
      responses: { 200: { description: "The circuit", schema: CircuitOut }, 404: errors[404] },
      handler: async ({ params }) => {
        const { ep } = await load(params);
        const [circuit, transitions] = await Promise.all([
          circuitOf(deps, ep),
          store.listCircuitTransitions(ep.id, TRANSITIONS_SHOWN),
        ]);
        return ok({
          ...circuitOut(circuit),
          reopenCount: circuit.reopenCount,
          openedAt: iso(circuit.openedAt ?? null),
          transitions: transitions.map((t) => ({
            from: t.from,
            to: t.to,
            at: iso(t.at),
            reason: t.reason,
          })),
        });
      },
    }),
    defineRoute({
      ...common,
      method: "GET",
      path: `${epPath}/retry-schedule`,
      operationId: "hookline.endpoint.retry-schedule",
      summary: "The retry schedule the endpoint's deliveries follow, and where it comes from",
      responses: {
        200: { description: "The schedule", schema: RetryScheduleOut },
        404: errors[404],
      },
      handler: async ({ params }) => {
        const { app, ep } = await load(params);
        const policy = resolvePolicy(deps.policyDefaults, app.deliveryPolicy, ep.deliveryPolicy);
        const setBy = ep.deliveryPolicy?.permanentStatuses
          ? "endpoint"
          : app.deliveryPolicy?.permanentStatuses
            ? "application"
            : "default";
        return ok({
          ...publishSchedule(policy.ladder),
          source: policy.source.retry,
          retryAfter: RETRY_AFTER_RULES,
          permanent: {
            // 410 is permanent whatever the set says (outcome.ts), so it is named with it.
            statuses: [...new Set([...policy.permanentStatuses, 410])].sort((a, b) => a - b),
            source: setBy,
          },
        });
      },
    }),
    defineRoute({
      ...common,
      method: "GET",
      path: `${epPath}/delivery-policy`,
      operationId: "hookline.endpoint.get-delivery-policy",
      summary: "The endpoint's own delivery policy ({} when it has none)",
      responses: {
        200: { description: "The policy", schema: DeliveryPolicyDoc },
        404: errors[404],
      },
      handler: async ({ params }) => ok((await load(params)).ep.deliveryPolicy ?? {}),
    }),
    defineRoute({
      ...common,
      method: "PUT",
      path: `${epPath}/delivery-policy`,
      operationId: "hookline.endpoint.set-delivery-policy",
      summary: "Set the endpoint's delivery policy ({} clears it)",
      body: PolicyBody,
      responses: {
        200: { description: "The policy", schema: DeliveryPolicyDoc },
        ...errors,
        409: { description: `The application is hookline's own, or: ${RACED}`, schema: HttpError },
      },
      handler: async ({ params, body }) => {
        const { after } = await changeEndpoint(
          deps,
          () => requireChangeableEndpoint(store, params),
          (ep, at) => ({ ...ep, deliveryPolicy: body, updatedAt: at }),
        );
        engine.invalidateEndpoint(after.id);
        return ok(body ?? {});
      },
    }),
    defineRoute({
      ...common,
      method: "GET",
      path: `${appPath}/delivery-policy`,
      operationId: "hookline.application.get-delivery-policy",
      summary: "The application's delivery policy ({} when it has none)",
      responses: {
        200: { description: "The policy", schema: DeliveryPolicyDoc },
        404: errors[404],
      },
      handler: async ({ params }) =>
        ok((await requireApp(store, params.app_id!)).deliveryPolicy ?? {}),
    }),
    defineRoute({
      ...common,
      method: "PUT",
      path: `${appPath}/delivery-policy`,
      operationId: "hookline.application.set-delivery-policy",
      summary: "Set the application's delivery policy ({} clears it)",
      body: PolicyBody,
      responses: {
        200: { description: "The policy", schema: DeliveryPolicyDoc },
        ...errors,
        409: { description: `The application is hookline's own, or: ${RACED}`, schema: HttpError },
      },
      handler: async ({ params, body }) => {
        const { after } = await changeApplication(
          deps,
          () => requireChangeableApp(store, params.app_id!),
          (app, at) => ({ ...app, deliveryPolicy: body, updatedAt: at }),
        );
        engine.invalidateApplication(after.id);
        return ok(body ?? {});
      },
    }),
  ];
}
