/**
 * What one engine holds: how many claimed deliveries are in its hands, and its bookkeeping of
 * endpoints coming in (to refill, to adopt) and going out (marked to let go of, handed over). The
 * claim loop, the dispatcher and the fleet's side (fleet-host.ts) all keep it up to date; an
 * endpoint may be handed back only when nothing of it is in hand or on its way here.
 */
import type { ClaimedDelivery } from "../store/port.js";
import type { EndpointRuntime } from "./runtime.js";

export class Holdings {
  /** Claimed deliveries in this process's hands: queued, in flight, or on their way to a queue. */
  claimed = 0;
  /** Endpoints the scan skipped while full, refilled through their own index once they have room. */
  readonly backlogged = new Set<EndpointRuntime>();
  /**
   * Endpoints with work due that no scan claimed, to claim through their own index: another
   * worker let go of them, or the look by endpoint found them.
   */
  readonly adoptable = new Set<string>();
  /** Endpoints this worker handed over, not taken back for a while (id → until). */
  readonly handedOver = new Map<string, number>();
  /**
   * Runtimes marked to let go of: a few at a time, where the fleet looks every 25 ms while a
   * hand-over is pending; walking every runtime that often would cost a worker with thousands.
   */
  readonly marked = new Set<EndpointRuntime>();
  /** Endpoints kept here for a while (a failure drill's): never marked to let go of meanwhile. */
  readonly pinned = new Set<string>();
  /** Endpoints taken for a pin that never had work here: handed back at the next heartbeat. */
  readonly strays = new Set<string>();
  /**
   * Claimed deliveries whose endpoint could not be loaded (a store error): held and counted,
   * and admitted again by the recovery timer.
   */
  unadmitted: ClaimedDelivery[] = [];
  /**
   * Per endpoint, claimed deliveries an admission has in hand and not yet queued (it awaits other
   * endpoints' loading meanwhile). Like `unadmitted` ones, they keep their endpoint from being
   * handed back: once queued they would be sent, by a worker that no longer owns it.
   */
  private readonly admitting = new Map<string, number>();
  /** Claims started so far, and the numbers of those still running. */
  private claimsStarted = 0;
  private readonly claimsRunning = new Set<number>();

  /** A numbered claim: an endpoint is not handed back while a claim older than its mark runs. */
  async numbered<T>(claim: () => Promise<T>): Promise<T> {
    const n = ++this.claimsStarted;
    this.claimsRunning.add(n);
    try {
      return await claim();
    } finally {
      this.claimsRunning.delete(n);
    }
  }

  /** Whether any claim is under way. */
  claiming(): boolean {
    return this.claimsRunning.size > 0;
  }

  /** The number of the oldest claim still running (infinite when none runs). */
  oldestClaimRunning(): number {
    let oldest = Number.POSITIVE_INFINITY;
    for (const n of this.claimsRunning) oldest = Math.min(oldest, n);
    return oldest;
  }

  /**
   * Keeps the endpoint here until unpinned: never marked to let go of meanwhile (planReleases
   * passes it over), and, if `rt` was marked already, kept after all (its claims resume).
   */
  pin(endpointId: string, rt: EndpointRuntime | undefined): void {
    this.pinned.add(endpointId);
    if (!rt?.leaving) return;
    rt.leaving = null;
    this.marked.delete(rt);
  }

  /** Marks an endpoint to let go of; claims from now on pass it over. */
  markLeaving(rt: EndpointRuntime, why: "idle" | "handover"): void {
    rt.leaving = why;
    rt.leavingAfterClaim = this.claimsStarted;
    this.marked.add(rt);
  }

  /** Counts a claimed delivery of the endpoint on its way to a queue (1), or arrived (-1). */
  countArriving(endpointId: string, by: 1 | -1): void {
    const n = (this.admitting.get(endpointId) ?? 0) + by;
    if (n > 0) this.admitting.set(endpointId, n);
    else this.admitting.delete(endpointId);
  }

  /** Endpoints with claimed deliveries on their way to a queue. */
  arriving(): Set<string> {
    return new Set([...this.admitting.keys(), ...this.unadmitted.map((d) => d.endpointId)]);
  }
}
