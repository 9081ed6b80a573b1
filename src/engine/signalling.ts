/**
 * The engine control the API and the dead-letter queue use: it tells this process's engine (if it
 * runs one) and, when the store is shared, every other process, through the store's signals.
 * Signals raised in one turn of the event loop go out together, so a burst of accepted messages
 * costs one notification, not one each. A settings change whose notification fails is sent again
 * (see `retryLater`).
 */
import type { Signal, WorkerCoordination } from "../store/coordination.js";
import type { Intake } from "../store/port.js";
import type { DeliveryBudget, EndpointLiveStatus, EngineControl } from "./control.js";

/** How long a failed notification of settings changes waits before it is sent again. */
const RETRY_MS = 1_000;

export class SignallingControl implements EngineControl {
  private wakeAt: number | null = null;
  /**
   * Settings changes to announce, one per endpoint or application however often it changed
   * meanwhile, by kind and id, in the order first raised (wake-ups are kept in `wakeAt`).
   */
  private readonly pending = new Map<string, Signal & { kind: "endpoint" | "app" }>();
  private scheduled = false;
  private retry: NodeJS.Timeout | null = null;
  /** Whether the failure of the notifications now being retried was logged (no log flood). */
  private failureLogged = false;

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
    this.queue({ kind: "endpoint", id: endpointId });
    this.flushSoon();
  }

  invalidateApplication(appId: string): void {
    this.local?.invalidateApplication(appId);
    this.queue({ kind: "app", id: appId });
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

  private queue(signal: Signal & { kind: "endpoint" | "app" }): void {
    const key = `${signal.kind} ${signal.id}`;
    if (!this.pending.has(key)) this.pending.set(key, signal);
  }

  /** The settings changes waiting, taken out. */
  private takePending(): (Signal & { kind: "endpoint" | "app" })[] {
    const taken = [...this.pending.values()];
    this.pending.clear();
    return taken;
  }

  private flushSoon(): void {
    if (!this.coordination || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const signals: Signal[] = this.takePending();
      if (this.wakeAt !== null) signals.unshift({ kind: "wake", dueAt: this.wakeAt });
      this.wakeAt = null;
      if (!signals.length) return;
      this.coordination!.publish(this.from(), signals).then(
        () => {
          this.failureLogged = false;
        },
        (err: unknown) => {
          if (!this.failureLogged) this.log.warn({ err }, "signalling the workers failed");
          this.retryLater(signals);
          // Logged once while settings changes wait to be sent again, each time otherwise.
          this.failureLogged = this.pending.size > 0;
        },
      );
    });
  }

  /**
   * The change is committed before its signal goes out, and nothing else tells the worker that
   * owns the endpoint: a lost settings signal would leave it on the old URL, secret, disabled
   * flag or policy until it let the endpoint go. So those are sent again until one gets through
   * (a worker whose own LISTEN connection broke meanwhile reloads everything when it is back).
   * A lost wake-up is not: the workers' heartbeats find due work by endpoint within seconds.
   */
  private retryLater(failed: readonly Signal[]): void {
    const later = this.takePending();
    // Put back ahead of what came meanwhile, once each.
    for (const s of failed) if (s.kind === "endpoint" || s.kind === "app") this.queue(s);
    for (const s of later) this.queue(s);
    if (!this.pending.size || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.flushSoon();
    }, RETRY_MS);
    // A process stopping does not wait for it.
    this.retry.unref();
  }
}
