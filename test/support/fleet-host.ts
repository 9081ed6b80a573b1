/**
 * What surrounds a Fleet in tests of the fleet alone (fleet.ts, without an engine or a database):
 * its engine side, a coordination that stands in for the database, and a fake clock's time; and
 * an engine's real fleet side over loaded endpoints.
 */
import type { Application, Endpoint } from "../../src/domain/types.js";
import { DEFAULT_ADAPTIVE } from "../../src/engine/adaptive-limit.js";
import { DEFAULT_BREAKER } from "../../src/engine/breaker.js";
import { engineFleetHost } from "../../src/engine/fleet-host.js";
import { Fleet, type FleetHost } from "../../src/engine/fleet.js";
import { Holdings } from "../../src/engine/holdings.js";
import { EndpointRuntimes } from "../../src/engine/runtimes.js";
import type { WorkerCoordination } from "../../src/store/coordination.js";
import { FakeClock } from "./fake-clock.js";

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
    takeOver: () => {},
    forgetAll: () => {},
    onSignals: () => {},
    rescan: () => {},
    log: { warn: () => {}, error: () => {} },
    ...overrides,
  };
}

/**
 * A coordination in which this worker is one of two, owning one endpoint of two, and nobody
 * else is dead, signals or leaves work behind: a test overrides the calls it scripts.
 */
export function quietCoordination(overrides: Partial<WorkerCoordination> = {}): WorkerCoordination {
  return {
    register: async () => {},
    heartbeat: async () => ({
      alive: true,
      liveWorkers: 2,
      ownedTotal: 2,
      ownedByMe: 1,
      releasedWithWork: [],
    }),
    reap: async () => ({ workers: [], endpointIds: [], deliveries: 0 }),
    orphans: async () => [],
    dueOwned: async () => [],
    take: async () => true,
    unregister: async () => [],
    publish: async () => {},
    subscribe: async () => async () => {},
    ...overrides,
  };
}

/**
 * A worker's Fleet, "wkr_test" on host "test", on `coordination` and `clock` with the heartbeat
 * and dead-after time given (an idle endpoint is let go after 10 s), around `host`; started.
 */
export async function aStartedFleet(
  coordination: WorkerCoordination,
  clock: FakeClock,
  timing: { heartbeatMs: number; deadAfterMs: number },
  host: FleetHost = idleFleetHost(),
): Promise<Fleet> {
  const fleet = new Fleet(
    coordination,
    clock,
    { ...timing, idleReleaseMs: 10_000, role: "worker", host: "test" },
    host,
    () => "wkr_test",
  );
  await fleet.start();
  return fleet;
}

/** Moves the clock in 5 ms steps, letting each beat's promises settle. */
export async function runFleetClock(clock: FakeClock, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 5) {
    clock.advance(5);
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  }
}

/**
 * An engine's real fleet side (fleet-host.ts) over these endpoints, each loaded as a runtime from
 * a store that holds only them: for tests of what the engine hands back and when.
 */
export async function engineSideOver(endpoints: Endpoint[], app: Application) {
  const clock = new FakeClock();
  const byId = new Map(endpoints.map((e) => [e.id, e]));
  const runtimes = new EndpointRuntimes({
    store: {
      getEndpoint: async (id) => byId.get(id) ?? null,
      findApplication: async () => app,
      getCircuit: async () => null,
    },
    settings: {
      policyDefaults: { retry: { preset: "default" }, concurrencyLimit: 5, timeoutMs: 1_000 },
      breaker: DEFAULT_BREAKER,
      adaptive: DEFAULT_ADAPTIVE,
    },
    clock,
  });
  const holdings = new Holdings();
  const host = engineFleetHost({
    holdings,
    runtimes,
    clock,
    log: { warn: () => {}, error: () => {} },
    idleReleaseMs: 10_000,
    holdsUnwritten: () => false,
    wake: () => {},
    invalidateEndpoint: () => {},
    invalidateApplication: () => {},
    pumpSoon: () => {},
  });
  for (const e of endpoints) await runtimes.load(e.id);
  return { clock, runtimes, holdings, host };
}
