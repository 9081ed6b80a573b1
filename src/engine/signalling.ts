/**
 * The engine control the API and the dead-letter queue use: it tells this process's engine (if it
 * runs one) and, when the store is shared, every other process, through the store's signals.
 * Signals raised in one turn of the event loop go out together, so a burst of accepted messages
 * costs one notification, not one each.
 */
import type { Signal, WorkerCoordination } from "../store/coordination.js";
import type { Intake } from "../store/port.js";
import type { DeliveryBudget, EndpointLiveStatus, EngineControl } from "./control.js";

export class SignallingControl implements EngineControl {
  private wakeAt: number | null = null;
  private readonly pending: Signal[] = [];
  private scheduled = false;

  constructor(
    private readonly local: EngineControl | null,
    private readonly coordination: WorkerCoordination | null,
    /** Who the signals come from (a process never acts on its own). */
    private readonly from: () => string,
    private readonly log: { warn(obj: object, msg: string): void },
  ) {}

  wake(dueAt?: number): void {
    this.local?.wake(dueAt);
    const at = dueAt ?? Number.MIN_SAFE_INTEGER;
    this.wakeAt = this.wakeAt === null ? at : Math.min(this.wakeAt, at);
    this.flushSoon();
  }

  invalidateEndpoint(endpointId: string): void {
    this.local?.invalidateEndpoint(endpointId);
    this.pending.push({ kind: "endpoint", id: endpointId });
    this.flushSoon();
  }

  invalidateApplication(appId: string): void {
    this.local?.invalidateApplication(appId);
    this.pending.push({ kind: "app", id: appId });
    this.flushSoon();
  }

  callerWaited(ms: number): void {
    this.local?.callerWaited(ms);
  }

  intake(): Intake | null {
    return this.local?.intake() ?? null;
  }

  endpointStatus(endpointId: string): EndpointLiveStatus | null {
    // Another worker may own the endpoint; its live numbers are only known there.
    return this.local?.endpointStatus(endpointId) ?? null;
  }

  deliveryBudget(): DeliveryBudget | null {
    return this.local?.deliveryBudget() ?? null;
  }

  private flushSoon(): void {
    if (!this.coordination || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const signals = this.pending.splice(0);
      if (this.wakeAt !== null) signals.unshift({ kind: "wake", dueAt: this.wakeAt });
      this.wakeAt = null;
      if (!signals.length) return;
      this.coordination!.publish(this.from(), signals).catch((err: unknown) => {
        // The workers' fallback poll finds the work a little later.
        this.log.warn({ err }, "signalling the workers failed");
      });
    });
  }
}
