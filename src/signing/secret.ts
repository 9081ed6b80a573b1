import { randomBytes } from "node:crypto";
import { ValidationError } from "../errors.js";

/** Prefix that marks a Standard Webhooks symmetric (HMAC) secret. */
export const SECRET_PREFIX = "whsec_";

/** Bytes of key material in a secret hookline generates. */
export const GENERATED_SECRET_BYTES = 24;

/** Smallest and largest key, in bytes, that hookline accepts (the Standard Webhooks range). */
export const MIN_SECRET_BYTES = 24;
export const MAX_SECRET_BYTES = 64;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A fresh endpoint signing secret: "whsec_" + base64 of 24 random bytes. */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(GENERATED_SECRET_BYTES).toString("base64");
}

/**
 * The key bytes of a "whsec_<base64>" secret.
 * @throws ValidationError (loc ["body", "secret"]) if the secret is malformed or its key has the wrong size.
 */
export function parseSecret(secret: string): Buffer {
  const problem = secretProblem(secret);
  if (typeof problem === "string") {
    throw new ValidationError([{ loc: ["body", "secret"], msg: problem, type: "secret_format" }]);
  }
  return problem;
}

/** True if `s` is a secret that {@link parseSecret} accepts. */
export function isValidSecret(s: unknown): s is string {
  return typeof s === "string" && typeof secretProblem(s) !== "string";
}

/** The decoded key, or a message saying what is wrong. */
function secretProblem(secret: unknown): Buffer | string {
  if (typeof secret !== "string" || !secret.startsWith(SECRET_PREFIX)) {
    return `must start with "${SECRET_PREFIX}"`;
  }
  const encoded = secret.slice(SECRET_PREFIX.length);
  // Buffer.from(…, "base64") silently skips characters it does not understand, so check the
  // alphabet and padding first; a typo must be an error, not a different key.
  if (encoded.length === 0 || !BASE64.test(encoded)) {
    return `must be "${SECRET_PREFIX}" followed by standard, padded base64`;
  }
  const key = Buffer.from(encoded, "base64");
  // Non-zero unused bits in the last character would decode to the same key as another string.
  if (key.toString("base64") !== encoded) {
    return "is not canonical base64";
  }
  if (key.length < MIN_SECRET_BYTES || key.length > MAX_SECRET_BYTES) {
    return `key must be ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} bytes, got ${key.length}`;
  }
  return key;
}
