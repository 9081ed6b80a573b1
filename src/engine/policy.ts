/**
 * Resolution of an endpoint's delivery policy: hookline's defaults, overridden by the
 * application's policy, overridden by the endpoint's. Pure; the API validates with it too.
 */
import type { DeliveryPolicy } from "../domain/types.js";
import { ValidationError, type FieldProblem } from "../errors.js";
import {
  ignoredRetryFields,
  resolveLadder,
  type RetryLadder,
  type RetryPolicySpec,
} from "./ladder.js";
import { DEFAULT_PERMANENT_STATUSES } from "./outcome.js";

/** The settings a delivery uses, all resolved. */
export interface ResolvedPolicy {
  ladder: RetryLadder;
  concurrencyLimit: number;
  permanentStatuses: ReadonlySet<number>;
  timeoutMs: number;
  /** Where each value came from, for the API's published schedule. */
  source: { retry: "default" | "application" | "endpoint" };
}

/** hookline-wide defaults, from configuration. */
export interface PolicyDefaults {
  retry: RetryPolicySpec;
  concurrencyLimit: number;
  timeoutMs: number;
}

export const CONCURRENCY_RANGE = { min: 1, max: 500 } as const;
export const TIMEOUT_RANGE = { min: 1_000, max: 30_000 } as const;

/** Merges defaults ← application ← endpoint. Both policies must already be valid. */
export function resolvePolicy(
  defaults: PolicyDefaults,
  app: DeliveryPolicy | null,
  endpoint: DeliveryPolicy | null,
): ResolvedPolicy {
  const pick = <K extends keyof DeliveryPolicy>(k: K) => endpoint?.[k] ?? app?.[k];
  const retry = pick("retry");
  return {
    ladder: resolveLadder(retry ?? defaults.retry),
    concurrencyLimit: pick("concurrencyLimit") ?? defaults.concurrencyLimit,
    permanentStatuses: new Set(pick("permanentStatuses") ?? DEFAULT_PERMANENT_STATUSES),
    timeoutMs: pick("timeoutMs") ?? defaults.timeoutMs,
    source: {
      retry: endpoint?.retry ? "endpoint" : app?.retry ? "application" : "default",
    },
  };
}

/**
 * Checks a policy a user sent; throws one ValidationError naming every bad field under `path`.
 * Unknown keys are rejected so a typo ("concurency") is not silently ignored.
 */
export function validatePolicy(input: unknown, path: (string | number)[]): DeliveryPolicy {
  const problems: FieldProblem[] = [];
  const bad = (loc: (string | number)[], msg: string, type = "value_error") =>
    problems.push({ loc: [...path, ...loc], msg, type });
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new ValidationError([{ loc: path, msg: "must be an object", type: "type_error" }]);
  }
  const p = input as Record<string, unknown>;
  const out: DeliveryPolicy = {};
  for (const key of Object.keys(p)) {
    if (!["retry", "concurrencyLimit", "permanentStatuses", "timeoutMs"].includes(key)) {
      bad([key], "is not a delivery policy field", "extra_forbidden");
    }
  }
  if (p.retry !== undefined && p.retry !== null) {
    problems.push(...ignoredRetryFields(p.retry, [...path, "retry"]));
    try {
      resolveLadder(p.retry as RetryPolicySpec, [...path, "retry"]);
      out.retry = p.retry as RetryPolicySpec;
    } catch (err) {
      if (err instanceof ValidationError) problems.push(...err.problems);
      else throw err;
    }
  }
  const c = p.concurrencyLimit;
  if (c !== undefined && c !== null) {
    if (
      !Number.isInteger(c) ||
      (c as number) < CONCURRENCY_RANGE.min ||
      (c as number) > CONCURRENCY_RANGE.max
    ) {
      bad(["concurrencyLimit"], "must be a whole number from 1 to 500");
    } else out.concurrencyLimit = c as number;
  }
  const t = p.timeoutMs;
  if (t !== undefined && t !== null) {
    if (
      !Number.isInteger(t) ||
      (t as number) < TIMEOUT_RANGE.min ||
      (t as number) > TIMEOUT_RANGE.max
    ) {
      bad(["timeoutMs"], "must be a whole number of milliseconds from 1000 to 30000");
    } else out.timeoutMs = t as number;
  }
  const s = p.permanentStatuses;
  if (s !== undefined && s !== null) {
    if (!Array.isArray(s)) bad(["permanentStatuses"], "must be a list of status codes");
    else {
      s.forEach((code, i) => {
        if (!Number.isInteger(code) || code < 300 || code > 599 || code === 429) {
          bad(["permanentStatuses", i], "must be a 3xx, 4xx or 5xx status code other than 429");
        }
      });
      out.permanentStatuses = s as number[];
    }
  }
  if (problems.length) throw new ValidationError(problems);
  return out;
}
