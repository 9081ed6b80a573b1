/** After a person changed where or how an endpoint is sent to. */
import type { ApiDeps } from "./deps.js";

/**
 * An open circuit learned what the old target answered, which says little of the new one (a URL
 * corrected, an auth header added): its next probe, up to an hour off, is brought forward to now,
 * with the deliveries held for it, so deliveries resume at once through the probe and half-open
 * instead of an hour later. A closed circuit, or one whose probe is due already, is left as it is.
 */
export async function probeSoonerAfterChange(
  deps: Pick<ApiDeps, "store" | "clock" | "engine">,
  endpointId: string,
): Promise<void> {
  const now = deps.clock.now();
  if (await deps.store.bringProbeForward(endpointId, now)) deps.engine.wake(now);
}
