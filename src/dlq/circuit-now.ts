/** The circuit a replay is judged by. */
import type { CircuitSnapshot } from "../engine/breaker.js";
import type { EngineControl } from "../engine/control.js";
import type { Store } from "../store/port.js";

/**
 * Alone with its store, the engine's live circuit; in a fleet, the owner's as stored (runner.ts,
 * `circuitsOf`). A live circuit open and waiting may not have heard yet that a change of URL or
 * headers brought its probe forward in the store (api/probe-sooner.ts): the engine takes the
 * sooner probe when it next loads the endpoint, so it is taken here too, or a replay made after
 * the fix is told to wait for the old probe while it goes out at once.
 */
export async function circuitNow(
  deps: { store: Store; engine: EngineControl },
  endpointId: string,
): Promise<CircuitSnapshot | null> {
  const { store, engine } = deps;
  const live = store.coordination ? null : engine.endpointStatus(endpointId)?.circuit;
  if (!live) return store.getCircuit(endpointId);
  if (live.state !== "open") return live;
  const stored = await store.getCircuit(endpointId);
  const sooner = stored?.state === "open" ? stored.nextProbeAt : null;
  if (sooner === null || (live.nextProbeAt !== null && live.nextProbeAt <= sooner)) return live;
  return { ...live, nextProbeAt: sooner };
}
