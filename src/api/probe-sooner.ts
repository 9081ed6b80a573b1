/** After a person changed where or how an endpoint is sent to. */
import type { Endpoint } from "../domain/types.js";
import type { ApiDeps } from "./deps.js";

/**
 * An open circuit learned what the old target answered, which says little of the new one (a URL
 * corrected, an auth header added): its next probe, up to an hour off, is brought forward to now,
 * with the deliveries held for it, so deliveries resume at once through the probe and half-open
 * instead of an hour later. A closed circuit, or one whose probe is due already, is left as it is;
 * so is a disabled endpoint, whose held deliveries end unsent when they come due.
 */
export async function probeSoonerAfterChange(
  deps: Pick<ApiDeps, "store" | "clock" | "engine">,
  endpoint: Endpoint,
): Promise<void> {
  if (endpoint.disabled) return;
  const now = deps.clock.now();
  if (await deps.store.bringProbeForward(endpoint.id, now)) deps.engine.wake(now);
}
