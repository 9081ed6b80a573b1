/** The hookline delivery policy as the API takes it: checked by the engine's own validator. */
import { z } from "zod";
import type { DeliveryPolicy } from "../../domain/types.js";
import { PRESETS, type PresetName } from "../../engine/ladder.js";
import { validatePolicy } from "../../engine/policy.js";
import { ValidationError } from "../../errors.js";
import { addProblems } from "../validation.js";

const Jitter = z.union([
  z.object({ strategy: z.literal("none") }),
  z.object({ strategy: z.literal("proportional"), ratio: z.number().gt(0).max(1) }),
  z.object({ strategy: z.enum(["full", "equal", "decorrelated"]) }),
]);

const Retry = z.union([
  z.object({ preset: z.enum(Object.keys(PRESETS) as [PresetName, ...PresetName[]]) }),
  z.object({
    delays: z.array(z.number().min(0)).meta({ description: "seconds before each retry" }),
    jitter: Jitter.optional(),
    window: z.number().min(0).optional(),
    maxDelay: z.number().min(0).optional(),
  }),
  z.object({
    base: z.number().min(0),
    factor: z.number().min(1),
    cap: z.number().min(0),
    attempts: z.int().min(1).max(50),
    window: z.number().min(0),
    jitter: Jitter.optional(),
  }),
]);

/** The policy's shape, for the OpenAPI document (validation is validatePolicy's). */
export const DeliveryPolicyDoc = z
  .object({
    retry: Retry.optional(),
    concurrencyLimit: z.int().min(1).max(500).optional(),
    permanentStatuses: z.array(z.int().min(300).max(599)).optional(),
    timeoutMs: z.int().min(1000).max(30000).optional(),
  })
  .meta({
    description:
      "hookline delivery policy: retry ladder, concurrency, permanent statuses and timeout. " +
      "An endpoint's policy overrides its application's, which overrides the defaults.",
  });

const policyJsonSchema: Record<string, unknown> = { ...z.toJSONSchema(DeliveryPolicyDoc) };
delete policyJsonSchema.$schema;

/** Returns the policy, or null when it sets nothing (`{}` clears a stored policy). */
export function normalizePolicy(policy: DeliveryPolicy): DeliveryPolicy | null {
  return Object.keys(policy).length === 0 ? null : policy;
}

/**
 * A `deliveryPolicy` field: absent stays undefined (unchanged), null or `{}` clears it, anything
 * else must pass validatePolicy, whose problems are reported under the field's own path.
 */
export const PolicyField = z
  .unknown()
  .transform((value, ctx): DeliveryPolicy | null | undefined => {
    if (value === undefined || value === null) return value;
    try {
      return normalizePolicy(validatePolicy(value, []));
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      addProblems(ctx, err.problems);
      return z.NEVER;
    }
  })
  .meta({ ...policyJsonSchema, "x-hookline-extension": true });

/** A request body that is a whole policy (PUT …/delivery-policy); `{}` clears it. */
export const PolicyBody = z
  .unknown()
  .transform((value, ctx): DeliveryPolicy | null => {
    try {
      return normalizePolicy(validatePolicy(value, []));
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      addProblems(ctx, err.problems);
      return z.NEVER;
    }
  })
  .meta(policyJsonSchema);
