/**
 * What the API may ask of the delivery engine. The API knows this interface, never the engine's
 * internals, so an API-only process (a later issue) can pass a stand-in that does nothing.
 */
import type { Intake } from "../store/port.js";
import type { CircuitSnapshot } from "./breaker.js";

/** Live numbers about one endpoint, as the engine sees them right now. */
export interface EndpointLiveStatus {
  limit: number;
  effectiveLimit: number;
  inFlight: number;
  queued: number;
  p99LatencyMs: number | null;
  circuit: CircuitSnapshot;
}

export interface EngineControl {
  /**
   * New work was committed: look for due deliveries now instead of at the next timer. `dueAt` is
   * the earliest due time of what was committed; without it the engine rescans from the start.
   */
  wake(dueAt?: number): void;
  /** An endpoint's settings changed or it was deleted: reload before its next delivery. */
  invalidateEndpoint(endpointId: string): void;
  /** An application's delivery policy changed: reload its endpoints' settings. */
  invalidateApplication(appId: string): void;
  /**
   * An API caller waited `ms` for its message to be committed. Delivery in this process makes way
   * when callers wait too long (loop-budget.ts); other processes have loops of their own.
   */
  callerWaited(ms: number): void;
  /** Live status, or null when the engine has not touched the endpoint since it started. */
  endpointStatus(endpointId: string): EndpointLiveStatus | null;
  /** What this process's delivery may do right now (loop-budget.ts); null where nothing delivers. */
  deliveryBudget(): DeliveryBudget | null;
  /**
   * The engine of this process, offering to take a posted message's deliveries as they are
   * written (port.ts, `Intake`); null where no engine here may take them.
   */
  intake(): Intake | null;
}

/**
 * Keeping an endpoint with this process's engine for a while: a failure drill's, whose receiver
 * listens on this process's loopback, which no other worker can reach.
 */
export interface EndpointPinning {
  /**
   * Takes the endpoint now (false: another live worker owns it; try again later) and keeps it
   * here, never handed to another worker, until `unpin`.
   */
  pin(endpointId: string): Promise<boolean>;
  unpin(endpointId: string): void;
}

/** How far delivery makes way for the API in one process (loop-budget.ts). */
export interface DeliveryBudget {
  /** Deliveries this process holds: in flight or waiting for a slot. */
  held: number;
  /** How many it may hold now: fewer while the event loop lags or API callers wait. */
  limit: number;
  /** How many a second it may start now, while API callers wait; infinite while unpaced. */
  pace: number;
  /**
   * When the oldest delivery it holds waiting for an endpoint's slot came due (null: none waits).
   * Claimed, such a delivery is no longer pending in the store, yet it is due and not yet sent.
   */
  oldestWaitingDueAt: number | null;
}
