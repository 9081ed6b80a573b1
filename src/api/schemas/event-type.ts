/** Svix event type bodies and EventTypeOut. */
import { z } from "zod";
import type { EventType } from "../../domain/types.js";
import { EventTypeName, JsonObject } from "../validation.js";
import { Timestamp, iso } from "./common.js";

/** An event type's feature flag, and a portal link's: one a link gives must be one a type can have. */
export const FeatureFlag = z
  .string()
  .max(256)
  .regex(/^[a-zA-Z0-9\-_.]+$/, "may contain only letters, digits, '-', '_' and '.'");

const shared = {
  archived: z.boolean().optional(),
  deprecated: z.boolean().optional(),
  featureFlag: FeatureFlag.nullable().optional(),
  featureFlags: z.array(FeatureFlag).max(100).nullable().optional(),
  groupName: z.string().min(1).max(256).nullable().optional(),
  schemas: JsonObject.refine((v) => Buffer.byteLength(JSON.stringify(v)) <= 256 * 1024, {
    message: "must be at most 256 KiB of JSON",
  })
    .meta({ type: "object" })
    .nullable()
    .optional(),
};
const Description = z.string().max(4096);

/**
 * `featureFlag` is the older name of a single flag, and `featureFlags` wins: a flag sent in the
 * first that the second leaves out would be dropped without a word, so it is refused. One the
 * list holds is taken (an event type read and sent back carries its first flag in both).
 */
function flagsAgree(
  v: { featureFlag?: string | null; featureFlags?: string[] | null },
  ctx: z.RefinementCtx,
): void {
  const { featureFlag, featureFlags } = v;
  if (featureFlags === undefined || featureFlag == null) return;
  if (featureFlags?.includes(featureFlag)) return;
  ctx.addIssue({
    code: "custom",
    path: ["featureFlag"],
    message: `is the older name of a single flag, and featureFlags (which is taken instead) does not hold "${featureFlag}": send the flags in featureFlags only`,
    params: { type: "value_error" },
  });
}

export const EventTypeIn = z
  .object({ name: EventTypeName, description: Description, ...shared })
  .superRefine(flagsAgree);
export const EventTypeUpdate = z
  .object({ description: Description, ...shared })
  .superRefine(flagsAgree);
export const EventTypePatch = z
  .object({ description: Description.optional(), ...shared })
  .superRefine(flagsAgree);

export const EventTypeOut = z.object({
  name: z.string(),
  description: z.string(),
  archived: z.boolean(),
  deprecated: z.boolean(),
  featureFlag: z.string().nullable(),
  featureFlags: z.array(z.string()).nullable(),
  groupName: z.string().nullable(),
  schemas: z.object({}).catchall(z.unknown()).nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/**
 * The feature flags a body sets: `featureFlags` wins over the older single `featureFlag`;
 * undefined when it sends neither.
 */
export function flagsOf(body: {
  featureFlag?: string | null;
  featureFlags?: string[] | null;
}): string[] | null | undefined {
  if (body.featureFlags !== undefined) return body.featureFlags?.length ? body.featureFlags : null;
  if (body.featureFlag !== undefined) return body.featureFlag === null ? null : [body.featureFlag];
  return undefined;
}

/** EventTypeOut; `schemas` only when asked for (list calls leave it out unless with_content). */
export function eventTypeOut(et: EventType, withSchemas = true) {
  return {
    name: et.name,
    description: et.description,
    archived: et.archived,
    deprecated: et.deprecated,
    featureFlag: et.featureFlags?.[0] ?? null,
    featureFlags: et.featureFlags,
    groupName: et.groupName,
    schemas: withSchemas ? ((et.schemas as Record<string, unknown> | null) ?? null) : null,
    createdAt: iso(et.createdAt),
    updatedAt: iso(et.updatedAt),
  };
}
