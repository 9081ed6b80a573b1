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
  /**
   * Deliveries this process holds (in flight or waiting for a slot) and how many it may hold right
   * now: the latter drops while the event loop lags or API callers wait (loop-budget.ts). Null
   * where nothing delivers.
   */
  deliveryBudget(): { held: number; limit: number } | null;
  /**
   * The engine of this process, offering to take a posted message's deliveries as they are
   * written (port.ts, `Intake`); null where no engine here may take them.
   */
  intake(): Intake | null;
}
