/** A fleet's engine side for tests of the fleet alone (fleet.ts, without an engine). */
import type { FleetHost } from "../../src/engine/fleet.js";

/**
 * An engine side that holds no endpoint and answers every call with nothing: a test overrides
 * the calls it watches or steers.
 */
export function idleFleetHost(overrides: Partial<FleetHost> = {}): FleetHost {
  return {
    readyToRelease: () => ({ idle: [], handover: [] }),
    planReleases: () => {},
    handingOver: () => false,
    handedOver: () => [],
    released: () => {},
    adopt: () => {},
    forgetAll: () => {},
    onSignals: () => {},
    rescan: () => {},
    log: { warn: () => {}, error: () => {} },
    ...overrides,
  };
}
