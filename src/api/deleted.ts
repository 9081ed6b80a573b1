/** What follows deleting endpoints, whichever route deleted them. */
import type { ApiDeps } from "./deps.js";

/**
 * After the commit: the engine drops what it holds for the endpoints, and the bus tells anyone
 * waiting on them (a single replay waits for its outcome, which will now never come).
 */
export function endpointsDeleted(deps: ApiDeps, endpointIds: readonly string[]): void {
  for (const endpointId of endpointIds) {
    deps.engine.invalidateEndpoint(endpointId);
    deps.events?.emit({ type: "endpoint.deleted", endpointId });
  }
}
