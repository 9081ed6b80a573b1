import { z } from "zod";
import type { Application } from "../../domain/types.js";
import { ValidationError } from "../../errors.js";
import { Metadata, RateLimit, uidOf } from "../validation.js";
import { Timestamp, extension, iso } from "./common.js";
import { DeliveryPolicyDoc, PolicyField } from "./policy.js";

// A name of spaces alone shows as nothing: an application nobody can pick out, or click, in a list.
const Name = z
  .string()
  .min(1)
  .max(256)
  .refine((name) => name.trim() !== "", "must not be blank");

const shared = {
  uid: uidOf("app").nullable().optional(),
  metadata: Metadata.optional(),
  rateLimit: RateLimit,
  // Newer Svix clients call the rate limit `throttleRate`; both are accepted.
  throttleRate: RateLimit,
  deliveryPolicy: PolicyField.optional(),
};

/** Svix ApplicationIn (create and PUT), plus hookline's deliveryPolicy. */
export const ApplicationIn = z.object({ name: Name, ...shared });
/** Svix ApplicationPatch: only the fields sent change. */
export const ApplicationPatch = z.object({ name: Name.optional(), ...shared });

export const ApplicationOut = z.object({
  id: z.string(),
  uid: z.string().nullable(),
  name: z.string(),
  rateLimit: z.int().nullable(),
  throttleRate: z.int().nullable(),
  metadata: Metadata,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  deliveryPolicy: extension(DeliveryPolicyDoc.nullable()),
});

export type ApplicationInput = z.output<typeof ApplicationIn>;

/**
 * The rate limit from either field name; undefined when neither was sent. Both sent with other
 * values is refused (keeping one would drop the other without a word), unless the body changes a
 * stored record (`current`) and one of them is its limit as read: a Svix client's
 * `update(id, { ...read, rateLimit })` sends the limit it read under the other name, so the one
 * that differs from it is the change.
 */
export function rateLimitOf(
  input: { rateLimit?: number | null; throttleRate?: number | null },
  current?: number | null,
): number | null | undefined {
  const { rateLimit, throttleRate } = input;
  if (rateLimit !== undefined && throttleRate !== undefined && rateLimit !== throttleRate) {
    if (current !== undefined && rateLimit === current) return throttleRate;
    if (current !== undefined && throttleRate === current) return rateLimit;
    throw new ValidationError([
      {
        loc: ["body", "throttleRate"],
        msg: `is another name for rateLimit, sent as ${rateLimit}: send one of them, or both the same`,
        type: "value_error",
      },
    ]);
  }
  return throttleRate !== undefined ? throttleRate : rateLimit;
}

/** A new application from validated input. */
export function newApplication(id: string, input: ApplicationInput, now: number): Application {
  return {
    id,
    uid: input.uid ?? null,
    name: input.name,
    rateLimit: rateLimitOf(input) ?? null,
    metadata: input.metadata ?? {},
    deliveryPolicy: input.deliveryPolicy ?? null,
    createdAt: now,
    updatedAt: now,
  };
}

export function applicationOut(app: Application) {
  return {
    id: app.id,
    uid: app.uid,
    name: app.name,
    rateLimit: app.rateLimit,
    throttleRate: app.rateLimit,
    metadata: app.metadata,
    createdAt: iso(app.createdAt),
    updatedAt: iso(app.updatedAt),
    deliveryPolicy: app.deliveryPolicy,
  };
}
