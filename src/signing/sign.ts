import { createHmac } from "node:crypto";
import { parseSecret } from "./secret.js";

/** The three Standard Webhooks headers hookline sends with every attempt. */
export interface SignatureHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/**
 * Whether a header name is a signature header's: hookline's own `webhook-*`, or the `svix-*` the
 * svix library reads before them. A custom header of either would fail receivers' verification,
 * so the API refuses such names and a request never carries one an endpoint kept from before.
 */
export function isSignatureHeaderName(name: string): boolean {
  return /^(?:svix|webhook)-/i.test(name);
}

/** What {@link signPayload} signs: one message attempt and the keys to sign it with. */
export interface SignInput {
  /** The message id; the same on every retry and replay. */
  msgId: string;
  /** This attempt's time, in whole Unix seconds. */
  timestamp: number;
  /** The exact bytes sent as the request body. */
  body: Buffer | string;
  /** Current key first, then keys still in their grace period. */
  keys: readonly Buffer[];
}

/** An endpoint's signing secrets: the current one and those being rotated out. */
export interface EndpointSecrets {
  current: string;
  /** Secrets replaced by `current`; each still signs until `expiresAt` (ms since the epoch). */
  previous: { secret: string; expiresAt: number }[];
}

/**
 * The `webhook-signature` header value: one "v1,<base64 HMAC-SHA256>" per key, space-separated,
 * in the order the keys are given.
 */
export function signPayload(input: SignInput): string {
  const { msgId, timestamp, body, keys } = input;
  if (keys.length === 0) {
    throw new Error("signPayload needs at least one key");
  }
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new RangeError(`timestamp must be whole Unix seconds, got ${timestamp}`);
  }
  // The signed content is `${msgId}.${timestamp}.${body}`. Feed it in parts so a large body is
  // never copied into a new string, and encode a string body once rather than once per key.
  const prefix = Buffer.from(`${msgId}.${timestamp}.`, "utf8");
  const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : body;
  const signatures: string[] = [];
  for (const key of keys) {
    const mac = createHmac("sha256", key).update(prefix).update(bytes).digest("base64");
    signatures.push(`v1,${mac}`);
  }
  return signatures.join(" ");
}

/** All three Standard Webhooks headers for one attempt. */
export function signatureHeaders(
  msgId: string,
  timestampSec: number,
  body: Buffer | string,
  keys: readonly Buffer[],
): SignatureHeaders {
  return {
    "webhook-id": msgId,
    "webhook-timestamp": String(timestampSec),
    "webhook-signature": signPayload({ msgId, timestamp: timestampSec, body, keys }),
  };
}

/**
 * The keys to sign with at `now` (ms): the current secret first, then previous secrets that have
 * not yet expired, in the order stored. The returned buffers are shared with a cache: do not mutate.
 */
export function activeKeys(secrets: EndpointSecrets, now: number): Buffer[] {
  const keys = [keyFor(secrets.current)];
  for (const p of secrets.previous) {
    if (p.expiresAt > now) {
      keys.push(keyFor(p.secret));
    }
  }
  return keys;
}

// Every attempt to an endpoint signs with the same few secrets; remembering their decoded keys
// saves a validate-and-decode per attempt. Bounded so rotated-away secrets do not pile up.
const KEY_CACHE_LIMIT = 1024;
const keyCache = new Map<string, Buffer>();

function keyFor(secret: string): Buffer {
  const cached = keyCache.get(secret);
  if (cached) {
    return cached;
  }
  const key = parseSecret(secret);
  if (keyCache.size >= KEY_CACHE_LIMIT) {
    // Maps iterate in insertion order, so the first key is the oldest entry.
    const oldest = keyCache.keys().next();
    if (!oldest.done) {
      keyCache.delete(oldest.value);
    }
  }
  keyCache.set(secret, key);
  return key;
}
