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

/**
 * Whether custom headers `after` send anything `before` did not: a name's spelling aside, as
 * receivers read header names. Headers written again unchanged (a tool that sets them on every
 * run) told the circuit nothing new, yet brought its probe forward each time, so an endpoint
 * still down was asked again at every write instead of after its growing wait.
 */
export function sendsOtherHeaders(
  before: Readonly<Record<string, string>>,
  after: Readonly<Record<string, string>>,
): boolean {
  const sent = (headers: Readonly<Record<string, string>>) =>
    new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  const [was, is] = [sent(before), sent(after)];
  return was.size !== is.size || [...is].some(([name, value]) => was.get(name) !== value);
}
