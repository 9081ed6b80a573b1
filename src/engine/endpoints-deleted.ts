/** What follows deleting endpoints, whoever deleted them (an API route, a failure drill). */
import type { EngineControl } from "./control.js";
import type { EngineEvents } from "./events.js";

/**
 * After the commit: the engine drops what it holds for the endpoints, and the bus tells anyone
 * waiting on them (a single replay waits for its outcome, which will now never come).
 */
export function endpointsDeleted(
  deps: { engine: EngineControl; events?: EngineEvents },
  endpointIds: readonly string[],
): void {
  for (const endpointId of endpointIds) {
    deps.engine.invalidateEndpoint(endpointId);
    deps.events?.emit({ type: "endpoint.deleted", endpointId });
  }
}
