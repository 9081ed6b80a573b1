/** Svix endpoint bodies (EndpointIn, EndpointUpdate, EndpointPatch, headers, secrets) and EndpointOut. */
import { z } from "zod";
import type { FieldProblem } from "../../errors.js";
import { isValidSecret, parseSecret, SECRET_PREFIX } from "../../signing/secret.js";
import { isSignatureHeaderName, type EndpointSecrets } from "../../signing/sign.js";
import {
  EventTypeName,
  Metadata,
  RateLimit,
  uidOf,
  addProblems,
  problemsOf,
} from "../validation.js";
import { Timestamp, extension, iso } from "./common.js";
import { DeliveryPolicyDoc, PolicyField } from "./policy.js";

const MAX_URL_LENGTH = 2048;

/** Why `value` is not an acceptable endpoint URL, or null. */
export function urlProblem(value: string): string | null {
  // The URL parser forgives what a person would call a typo: spaces around it, tabs and line
  // breaks in it, `http:/host` for `http://host`. The endpoint would keep the text as sent and
  // deliver to what the parser made of it; refused, the typo is seen where it was made.
  if (/[\s\u0000-\u001f\u007f]/u.test(value)) {
    return "must not contain spaces, tabs, line breaks or other control characters";
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an absolute http:// or https:// URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must use http or https";
  if (!/^https?:\/\/[^/\\]/i.test(value)) return "must start with http:// or https:// and a host";
  if (url.username || url.password) return "must not contain a user name or password";
  if (!url.hostname) return "must name a host";
  // Port 0 reaches nothing: every delivery would fail before it left.
  if (url.port === "0") return "must not use port 0";
  return null;
}

const Url = z
  .string()
  .max(MAX_URL_LENGTH)
  .superRefine((value, ctx) => {
    const problem = urlProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem, params: { type: "url" } });
  });

const Secret = z
  .string()
  // Svix takes the base64 "optionally prefixed with whsec_": without it, it is the same key.
  .transform((value) => (value.startsWith(SECRET_PREFIX) ? value : SECRET_PREFIX + value))
  .superRefine((value, ctx) => {
    if (isValidSecret(value)) return;
    const [problem] = problemsOf(() => parseSecret(value));
    ctx.addIssue({
      code: "custom",
      message: problem?.msg ?? "is not a valid secret",
      params: { type: problem?.type ?? "secret_format" },
    });
  });

export const CHANNEL_PATTERN = /^[a-zA-Z0-9\-_.:]+$/;

/** A message channel name. */
export const Channel = z
  .string()
  .max(128)
  .regex(CHANNEL_PATTERN, "may contain only letters, digits, '-', '_', '.' and ':'");

// hookline sets these itself on every request (or they describe the connection, not the message).
const RESERVED_HEADERS = new Set([
  "content-type",
  "content-length",
  "host",
  "user-agent",
  "connection",
  "transfer-encoding",
  "keep-alive",
  "upgrade",
  "expect",
  "te",
  "trailer",
]);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// What an HTTP/1.1 header value can carry (and undici sends): tab, visible ASCII and the rest of
// Latin-1. Anything else would be stored and then fail every delivery before it left hookline.
const UNSENDABLE_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const MAX_HEADER_VALUE = 4096;
const MAX_HEADER_NAME = 256;
/** How many custom headers an endpoint may send. */
export const MAX_CUSTOM_HEADERS = 50;

/** Problems with custom headers an endpoint would send, each at `[...base, name]`. */
export function headerProblems(
  headers: Record<string, string | null>,
  base: (string | number)[],
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (Object.keys(headers).length > MAX_CUSTOM_HEADERS) {
    problems.push({ loc: base, msg: `at most ${MAX_CUSTOM_HEADERS} headers`, type: "too_big" });
    return problems;
  }
  // Header names ignore case: two spellings of one name would both be sent.
  const seen = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) {
    const loc = [...base, name];
    const lower = name.toLowerCase();
    const twin = seen.get(lower);
    seen.set(lower, twin ?? name);
    if (name.length > MAX_HEADER_NAME || !TOKEN.test(name)) {
      problems.push({ loc, msg: `"${name}" is not a valid header name`, type: "header_name" });
    } else if (twin !== undefined) {
      problems.push({
        loc,
        msg: `"${name}" is the same header as "${twin}" (header names ignore case)`,
        type: "header_duplicate",
      });
    } else if (value !== null && isSignatureHeaderName(lower)) {
      // (A patch's null removes the header: one saved before its name was refused can still go.)
      // Not "set by hookline": it sends no svix-* header, nor webhook-* but its three.
      problems.push({
        loc,
        msg:
          `"${name}" is named as a signature header (svix-… or webhook-…), which receivers' ` +
          "verifying libraries read: hookline signs with webhook-id, webhook-timestamp and " +
          "webhook-signature; choose another name",
        type: "header_reserved",
      });
    } else if (value !== null && RESERVED_HEADERS.has(lower)) {
      problems.push({
        loc,
        msg: `"${name}" is set by hookline and cannot be overridden`,
        type: "header_reserved",
      });
    }
    if (value !== null && (UNSENDABLE_VALUE.test(value) || value.length > MAX_HEADER_VALUE)) {
      problems.push({
        loc,
        msg:
          `the value must be at most ${MAX_HEADER_VALUE} characters: tabs, visible ASCII and ` +
          "U+0080 to U+00FF, no line breaks, NUL or other ASCII control characters",
        type: "header_value",
      });
    }
  }
  return problems;
}

/** Custom headers: names and values checked as a whole so each bad header is named. */
export const Headers = z
  .record(z.string(), z.string())
  .superRefine((headers, ctx) => addProblems(ctx, headerProblems(headers, [])));

const shared = {
  uid: uidOf("ep").nullable().optional(),
  description: z.string().max(4096).optional(),
  // A 32-bit integer, as in Svix's EndpointIn (and PostgreSQL's column).
  version: z.int32().min(1).nullable().optional(),
  disabled: z.boolean().optional(),
  filterTypes: z.array(EventTypeName).max(1000).nullable().optional(),
  channels: z.array(Channel).max(10).nullable().optional(),
  metadata: Metadata.optional(),
  rateLimit: RateLimit,
  throttleRate: RateLimit,
  deliveryPolicy: PolicyField.optional(),
};

/** Svix EndpointIn (create), plus hookline's deliveryPolicy. */
export const EndpointIn = z.object({
  url: Url,
  ...shared,
  secret: Secret.nullable().optional(),
  headers: Headers.nullable().optional(),
});
/**
 * Svix EndpointUpdate (PUT), plus the create's secret and headers: a PUT that names no endpoint
 * creates one as a POST would, with them; dropped, the receiver given that secret refused every
 * delivery. An endpoint that exists keeps its own (they have calls of their own).
 */
export const EndpointUpdate = z.object({
  url: Url,
  ...shared,
  secret: extension(Secret.nullable().optional()),
  headers: extension(Headers.nullable().optional()),
});
/**
 * Svix EndpointPatch: only the fields sent change. Its headers are hookline's, taken only as the
 * endpoint's own (they have calls of their own): dropped, a change sent in them went unseen.
 */
export const EndpointPatch = z.object({
  url: Url.optional(),
  ...shared,
  secret: Secret.nullable().optional(),
  headers: extension(Headers.nullable().optional()),
});

/** Svix EndpointSecretOut, with hookline's word on the secrets the current one replaced. */
export const EndpointSecretOut = z.object({
  key: z.string(),
  previousSecrets: extension(
    z
      .array(z.object({ signsUntil: Timestamp }))
      .describe(
        "The secrets the current one replaced that hookline still signs with beside it, for " +
          "their rotation's grace period: when each stops, the latest first (a receiver may see " +
          "their signatures until then). Their keys are not given. Empty when none signs",
      ),
  ),
});

/** The secret answer at `now`: the current key, and when each replaced one still signing stops. */
export function secretOut(
  secrets: EndpointSecrets,
  now: number,
): z.output<typeof EndpointSecretOut> {
  return {
    key: secrets.current,
    // Those past their grace period may still be stored until the next rotation lets them go;
    // they sign no longer (sign.ts, `activeKeys`).
    previousSecrets: secrets.previous
      .filter((p) => p.expiresAt > now)
      .sort((a, b) => b.expiresAt - a.expiresAt)
      .map((p) => ({ signsUntil: iso(p.expiresAt) })),
  };
}

/** Svix EndpointSecretRotateIn: every field optional, so no body at all is `{}`, as in Svix. */
export const EndpointSecretRotateIn = z
  .object({
    key: Secret.nullable().optional(),
    gracePeriodSeconds: z
      .int()
      .min(0)
      .max(30 * 86_400)
      .nullable()
      .optional(),
  })
  .default({});
export const EndpointHeadersIn = z.object({ headers: Headers });
export const EndpointHeadersPatchIn = z.object({
  headers: z
    .record(z.string(), z.string().nullable())
    .superRefine((headers, ctx) => addProblems(ctx, headerProblems(headers, []))),
  deleteHeaders: z.array(z.string().max(MAX_HEADER_NAME)).max(MAX_CUSTOM_HEADERS).optional(),
});
export const EndpointHeadersOut = z.object({
  headers: z.record(z.string(), z.string()),
  sensitive: z.array(z.string()),
});

// Svix's list: these carry the receiver's credentials, so reading them back names them only.
const SENSITIVE_HEADERS = new Set([
  "authorization",
  "proxy-authorization",
  "www-authenticate",
  "proxy-authenticate",
  "x-auth-token",
]);

/** EndpointHeadersOut of stored custom headers: credential headers are named, their values left out. */
export function headersOut(stored: Record<string, string>): z.infer<typeof EndpointHeadersOut> {
  const headers: Record<string, string> = {};
  const sensitive: string[] = [];
  for (const [name, value] of Object.entries(stored)) {
    if (SENSITIVE_HEADERS.has(name.toLowerCase())) sensitive.push(name);
    else headers[name] = value;
  }
  return { headers, sensitive };
}

export const CircuitState = z.enum(["closed", "open", "half-open"]);

export const EndpointOut = z.object({
  id: z.string(),
  uid: z.string().nullable(),
  url: z.string(),
  description: z.string(),
  version: z.int(),
  disabled: z.boolean(),
  filterTypes: z.array(z.string()).nullable(),
  channels: z.array(z.string()).nullable(),
  rateLimit: z.int().nullable(),
  throttleRate: z.int().nullable(),
  metadata: Metadata,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  deliveryPolicy: extension(DeliveryPolicyDoc.nullable()),
  disabledReason: extension(z.string().nullable()),
  circuit: extension(
    z.object({
      state: CircuitState,
      since: Timestamp,
      reason: z.string().nullable(),
      nextProbeAt: Timestamp.nullable(),
    }),
  ),
  concurrency: extension(z.object({ limit: z.int(), effectiveLimit: z.int(), inFlight: z.int() })),
  retryAfter: extension(z.object({ honoured: z.int(), capped: z.int(), ignored: z.int() })),
  lastSuccessAt: extension(Timestamp.nullable()),
  /**
   * How long the current secret keeps signing after a rotation that gives no gracePeriodSeconds
   * (HOOKLINE_SECRET_GRACE_SECONDS); 0: it stops at once.
   */
  rotationGracePeriodSeconds: extension(z.int()),
});

export type EndpointInput = z.output<typeof EndpointIn>;

/** Svix EndpointStats: messages sent to the endpoint, by the status of their latest delivery. */
export const EndpointStats = z.object({
  success: z.int(),
  pending: z.int(),
  sending: z.int(),
  fail: z.int(),
  canceled: z.int(),
  pendingNow: extension(
    z
      .object({
        count: z.int(),
        orMore: z.boolean(),
        upTo: z.int(),
      })
      .describe(
        "The endpoint's deliveries waiting now, whatever the window or their message's age " +
          "(`pending` counts the window's messages only), counted up to a bound, `upTo`: " +
          "`orMore` says the count stopped there and more may wait",
      ),
  ),
});
