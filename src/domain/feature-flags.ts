/**
 * Svix's feature flags on event types: a way to keep a bespoke or unreleased event type out of
 * customers' sight. An event type without flags is everyone's; one with flags shows only to admin
 * tokens and to application tokens given at least one of them (a portal link's `featureFlags`).
 */
import type { EventType } from "./types.js";

/** Whether a token given `flags` sees the event type; null `flags`: an admin token, which sees all. */
export function seesEventType(
  et: Pick<EventType, "featureFlags">,
  flags: readonly string[] | null,
): boolean {
  if (flags === null || !et.featureFlags?.length) return true;
  return et.featureFlags.some((f) => flags.includes(f));
}
