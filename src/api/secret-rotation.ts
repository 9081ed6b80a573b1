/** Replacing an endpoint's signing secret while receivers still verify with the old ones. */
import type { Config } from "../config.js";
import { ConflictError } from "../errors.js";
import type { EndpointSecrets } from "../signing/sign.js";

/**
 * How many replaced secrets may still be signing at once. Every one adds a signature to every
 * request, and receivers bound their header sizes (Node's default is 16 KiB in all), so rotating
 * in a loop must not grow the header without end. Svix's server allows the same number.
 */
export const MAX_SECRETS_IN_GRACE = 5;

/** The 409 a rotation past that limit answers, as the API's description says it. */
export const GRACE_FULL = `${MAX_SECRETS_IN_GRACE} replaced secrets are still in their grace period`;

/** The grace period a rotation asked for, or the configured default. */
export function graceMsOf(body: { gracePeriodSeconds?: number | null }, config: Config): number {
  return body.gracePeriodSeconds == null ? config.secretGraceMs : body.gracePeriodSeconds * 1000;
}

/**
 * The secrets after `current` replaces the current one; the old one signs until `now + graceMs`,
 * and those already past their grace period are let go. A rotation that would leave more than
 * {@link MAX_SECRETS_IN_GRACE} signing is refused rather than dropping one a receiver may still
 * verify with; a grace period of 0 retires the current secret at once and is always taken.
 */
export function rotated(
  secrets: EndpointSecrets,
  current: string,
  now: number,
  graceMs: number,
): EndpointSecrets {
  const previous = [{ secret: secrets.current, expiresAt: now + graceMs }, ...secrets.previous];
  const signing = previous.filter((p) => p.expiresAt > now);
  if (signing.length > MAX_SECRETS_IN_GRACE) {
    const oldest = Math.min(...signing.map((p) => p.expiresAt));
    throw new ConflictError(
      `${MAX_SECRETS_IN_GRACE} replaced secrets are still in their grace period, the most hookline ` +
        `signs with; the first of them stops signing at ${new Date(oldest).toISOString()}. ` +
        `Rotate after that, or now with gracePeriodSeconds 0 to retire the current secret at once`,
    );
  }
  return { current, previous: signing };
}
