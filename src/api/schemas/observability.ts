/** Bodies of hookline's observability routes: alerts, stats, readiness, drills. */
import { z } from "zod";
import { Metadata } from "../validation.js";
import { Timestamp } from "./common.js";
import { EndpointIn, EndpointUpdate } from "./endpoint.js";

export const AlertOut = z.object({
  id: z.string(),
  rule: z.string(),
  severity: z.enum(["warning", "critical"]),
  summary: z.string(),
  endpointId: z.string().nullable(),
  // The endpoint's application, so a reader can go to the endpoint; null without one (or gone).
  appId: z.string().nullable(),
  value: z.number(),
  threshold: z.number(),
  since: Timestamp,
  resolvedAt: Timestamp.nullable(),
  // Resolved because the alert with this id carries on the same condition, not because it ended.
  supersededBy: z.string().nullable(),
});

export const AlertsOut = z.object({ firing: z.array(AlertOut), resolved: z.array(AlertOut) });

export const StatsOut = z.object({
  queueDepth: z.int(),
  oldestDueAgeMs: z.number(),
  dlqOpen: z.int(),
  dlqOldestAgeMs: z.number(),
  deliveredLastMinute: z.int(),
  failedLastMinute: z.int(),
});

export const ReadyOut = z.object({ ready: z.boolean(), store: z.string() });

export const DrillRunOut = z.object({
  id: z.string(),
  trigger: z.enum(["manual", "schedule"]),
  passed: z.boolean(),
  startedAt: Timestamp,
  finishedAt: Timestamp,
  durationMs: z.number(),
  steps: z.array(
    z.object({ name: z.string(), passed: z.boolean(), ms: z.number(), detail: z.string() }),
  ),
});

/** Svix OperationalWebhookEndpointOut. */
export const OperationalEndpointOut = z.object({
  id: z.string(),
  uid: z.string().nullable(),
  url: z.string(),
  description: z.string(),
  disabled: z.boolean(),
  filterTypes: z.array(z.string()).nullable(),
  rateLimit: z.int().nullable(),
  throttleRate: z.int().nullable(),
  metadata: Metadata,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/**
 * Fields of an application's endpoint that an operational one would not keep: no operational event
 * has a channel, and its version and delivery policy are not stored. Sent, each was dropped behind
 * a 2xx; refused now, as Svix's operational endpoints have none of them. Null (or no channels) is
 * still taken, as it changes nothing.
 */
const notKept = (why: string) => `not taken by an operational webhook endpoint: ${why}`;
const OperationalOnly = {
  channels: z
    .array(z.string())
    .nullable()
    .optional()
    .refine((v) => !v?.length, {
      message: notKept("no operational event has a channel"),
      params: { type: "value_error" },
    }),
  version: z.null({ error: notKept("it has no version") }).optional(),
  deliveryPolicy: z
    .null({ error: notKept("it is sent with hookline's default delivery policy") })
    .optional(),
};

/** Svix OperationalWebhookEndpointIn: an endpoint's create body without what it would not keep. */
export const OperationalEndpointIn = EndpointIn.extend(OperationalOnly);
/** Svix OperationalWebhookEndpointUpdate, likewise. */
export const OperationalEndpointUpdate = EndpointUpdate.extend(OperationalOnly);
