/** Replacing an endpoint's signing secret while receivers still verify with the old ones. */
import type { Clock } from "../clock.js";
import type { Config } from "../config.js";
import type { Endpoint } from "../domain/types.js";
import { ConflictError } from "../errors.js";
import { generateSecret } from "../signing/secret.js";
import type { EndpointSecrets } from "../signing/sign.js";
import type { Store } from "../store/port.js";
import { changeEndpoint } from "./stored-change.js";

/**
 * How many replaced secrets may still be signing at once. Every one adds a signature to every
 * request, and receivers bound their header sizes (Node's default is 16 KiB in all), so rotating
 * in a loop must not grow the header without end. Svix's server allows the same number.
 */
export const MAX_SECRETS_IN_GRACE = 5;

/** The 409 a rotation past that limit answers, as the API's description says it. */
export const GRACE_FULL = `${MAX_SECRETS_IN_GRACE} replaced secrets are still in their grace period`;

/**
 * A rotate call (an endpoint's, or an operational webhook endpoint's): the endpoint `read` finds
 * gets `key`, or a new secret, and its current one signs on for `gracePeriodSeconds`, or the
 * configured default. Answers the endpoint as stored.
 */
export async function rotateSecret(
  deps: { store: Store; clock: Clock; config: Config },
  read: () => Promise<Endpoint>,
  body: { key?: string | null; gracePeriodSeconds?: number | null },
): Promise<Endpoint> {
  const key = body.key ?? generateSecret();
  const graceMs =
    body.gracePeriodSeconds == null ? deps.config.secretGraceMs : body.gracePeriodSeconds * 1000;
  const { after } = await changeEndpoint(deps, read, (ep, at) => ({
    ...ep,
    secrets: rotated(ep.secrets, key, at, graceMs),
    updatedAt: at,
  }));
  return after;
}

/**
 * The secrets after `current` replaces the current one; the old one signs until `now + graceMs`,
 * and those already past their grace period are let go. A rotation that would leave more than
 * {@link MAX_SECRETS_IN_GRACE} signing is refused rather than dropping one a receiver may still
 * verify with; a grace period of 0 retires the current secret at once and is always taken. The
 * current secret itself changes nothing; a secret still in grace becoming current again leaves it.
 */
export function rotated(
  secrets: EndpointSecrets,
  current: string,
  now: number,
  graceMs: number,
): EndpointSecrets {
  // The same key again (a deploy applying its settings once more) replaces nothing; kept beside
  // itself it would sign twice and take up a place in grace.
  if (current === secrets.current) return secrets;
  // A secret in grace that comes back as the current one signs as that; kept in grace as well it
  // signed twice and took a place among the five. And the secret being replaced ends when this
  // rotation says: a copy left in grace by an earlier rotation back to it kept it signing after a
  // rotation with grace 0 was to retire it at once.
  const others = secrets.previous.filter(
    (p) => p.secret !== current && p.secret !== secrets.current,
  );
  const previous = [{ secret: secrets.current, expiresAt: now + graceMs }, ...others];
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
