/**
 * Which endpoints get series of their own in /metrics. A hookline with tens of thousands of
 * endpoints must not grow a series per endpoint per metric without bound: at most `max` endpoints
 * hold a slot; the others are counted under `endpoint="_other"`. A slot goes to an endpoint when
 * something happens to it and a slot is free, or when the endpoint idle longest has been idle for
 * `idleMs` (its series are then removed; totals and `_other` keep counting), and a deleted
 * endpoint's slot is freed at once. Slots are sticky otherwise, so a busy hookline does not churn
 * series.
 */

/** The label of endpoints without a slot of their own. */
export const OTHER_ENDPOINTS = "_other";
/** The label of the failure drills' deliveries, whichever endpoint a drill made for itself. */
export const DRILL_ENDPOINTS = "_drill";

/** A bounded, least-recently-active set of endpoints with series of their own. */
export class EndpointSlots {
  // Map iteration order is insertion order: re-inserting on activity keeps the idlest first.
  private readonly lastSeen = new Map<string, number>();

  constructor(
    private readonly max: number,
    private readonly idleMs: number,
    private readonly onEvict: (endpointId: string) => void,
  ) {}

  /** The label to count `endpointId` under at `now`, taking a slot for it if one can be had. */
  label(endpointId: string, now: number): string {
    if (this.lastSeen.has(endpointId)) {
      this.lastSeen.delete(endpointId);
      this.lastSeen.set(endpointId, now);
      return endpointId;
    }
    if (this.max <= 0) return OTHER_ENDPOINTS;
    if (this.lastSeen.size >= this.max) {
      const [idlest, at] = this.lastSeen.entries().next().value as [string, number];
      if (now - at < this.idleMs) return OTHER_ENDPOINTS;
      this.lastSeen.delete(idlest);
      this.onEvict(idlest);
    }
    this.lastSeen.set(endpointId, now);
    return endpointId;
  }

  /** Gives up the slot of an endpoint that is gone (deleted), removing its series at once. */
  release(endpointId: string): void {
    if (!this.lastSeen.delete(endpointId)) return;
    this.onEvict(endpointId);
  }

  /** Whether the endpoint has series of its own. */
  has(endpointId: string): boolean {
    return this.lastSeen.has(endpointId);
  }

  /** The endpoints holding a slot, idlest first. */
  tracked(): IterableIterator<string> {
    return this.lastSeen.keys();
  }

  get size(): number {
    return this.lastSeen.size;
  }
}
