/** Svix event type bodies and EventTypeOut. */
import { z } from "zod";
import type { EventType } from "../../domain/types.js";
import { ValidationError } from "../../errors.js";
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
 * list holds is taken, and so is the one the type shows as its `featureFlag` (its first): a type
 * read and sent back with its list changed (`{ ...read, featureFlags }`, the first flag taken off,
 * or every flag) still carries it, and means the list. The flag refused, or null.
 */
function flagLeftOut(
  v: { featureFlag?: string | null; featureFlags?: string[] | null },
  shown: string | null,
): string | null {
  const { featureFlag, featureFlags } = v;
  if (featureFlags === undefined || featureFlag == null) return null;
  return featureFlags?.includes(featureFlag) || featureFlag === shown ? null : featureFlag;
}

const leftOutMessage = (flag: string) =>
  `is the older name of a single flag, and featureFlags (which is taken instead) does not hold "${flag}": send the flags in featureFlags only`;

/**
 * The feature flags a change (PUT or PATCH) sets on the type it changes (null when there is none);
 * undefined when it sends neither name. A `featureFlag` the list leaves out is refused, unless the
 * list is the stored one: a type read and sent back with its `featureFlag` changed
 * (`{ ...read, featureFlag }`) carries its flags as read, and the single flag is the change. It
 * takes the place of the one the type showed as its `featureFlag` (its first); null takes it off.
 * Taking the list instead would answer 200 and keep the flag the caller changed or cleared.
 */
export function flagsOfChange(
  body: { featureFlag?: string | null; featureFlags?: string[] | null },
  stored: EventType | null,
): string[] | null | undefined {
  const storedFlags = stored?.featureFlags ?? [];
  const shown = storedFlags[0] ?? null;
  const { featureFlag, featureFlags } = body;
  const sent = featureFlags ?? [];
  const readBack =
    stored !== null &&
    featureFlags !== undefined &&
    sent.length === storedFlags.length &&
    sent.every((f, i) => f === storedFlags[i]);
  if (readBack && featureFlag !== undefined && featureFlag !== shown) {
    const rest = storedFlags.slice(1).filter((f) => f !== featureFlag);
    const flags = featureFlag === null ? rest : [featureFlag, ...rest];
    return flags.length ? flags : null;
  }
  const flag = flagLeftOut(body, shown);
  if (flag === null) return flagsOf(body);
  throw new ValidationError([
    { loc: ["body", "featureFlag"], msg: leftOutMessage(flag), type: "value_error" },
  ]);
}

/** A creation's body: there is no type it could have been read from. */
export const EventTypeIn = z
  .object({ name: EventTypeName, description: Description, ...shared })
  .superRefine((v, ctx) => {
    const flag = flagLeftOut(v, null);
    if (flag === null) return;
    ctx.addIssue({
      code: "custom",
      path: ["featureFlag"],
      message: leftOutMessage(flag),
      params: { type: "value_error" },
    });
  });
/** Checked against the stored type by {@link flagsOfChange}. */
export const EventTypeUpdate = z.object({ description: Description, ...shared });
/** Checked against the stored type by {@link flagsOfChange}. */
export const EventTypePatch = z.object({ description: Description.optional(), ...shared });

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
