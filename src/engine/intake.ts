/**
 * Taking deliveries as they are accepted. Alone with its store, the engine takes a new message's
 * deliveries as they are written when it would send them at once anyway: written claimed, handed
 * over after the commit, no claim (port.ts, `Intake`). In a fleet the worker that owns an
 * endpoint claims for it, so there is no intake.
 */
import type { Clock } from "../clock.js";
import type { ClaimedDelivery, Intake, Store } from "../store/port.js";
import { releaseOf, type Dispatcher } from "./dispatcher.js";
import type { Holdings } from "./holdings.js";
import type { EndpointRuntime } from "./runtime.js";
import type { EndpointRuntimes } from "./runtimes.js";

/** What the intake needs from the engine around it. */
export interface IntakeHost {
  isRunning(): boolean;
  /** Whether a scan now could find nothing: everything due has been claimed or is backlogged. */
  caughtUp(): boolean;
  /** How many more deliveries this process may hold now. */
  free(): number;
  /** Counts deliveries newly in this process's hands. */
  took(count: number): void;
  wake(): void;
}

export interface IntakeDeps {
  clock: Clock;
  leaseMs: number;
  store: Pick<Store, "releaseDeliveries">;
  runtimes: EndpointRuntimes;
  holdings: Holdings;
  dispatcher: Dispatcher;
  log: { error(obj: object, msg: string): void };
  host: IntakeHost;
}

export class EngineIntake implements Intake {
  constructor(private readonly deps: IntakeDeps) {}

  /**
   * Room only when taking changes nothing about what is sent when: nothing is due that a scan
   * has not claimed (the last scan came back short and nothing was announced since), the endpoint
   * is known, settled and not backlogged, nothing waits in its queue, its circuit is closed, and
   * it and the budget have a free slot for this one too (within its second's worth, should it
   * have a rate limit: runtime.ts, `room`), and no claim is under way (the store may write a new
   * message in the claim's own commit, before the claim's rows are counted here). Otherwise the
   * delivery is written due and claimed in its turn.
   */
  room(endpointId: string, forEndpoint: number, all: number): number {
    const { host, holdings } = this.deps;
    if (!host.isRunning() || !host.caughtUp() || holdings.claiming()) return 0;
    const rt = this.deps.runtimes.get(endpointId);
    if (!rt || rt.stale || rt.leaving || rt.endpoint.disabled || rt.queue.length > 0) return 0;
    if (holdings.backlogged.has(rt) || !rt.breaker.isClosed()) return 0;
    const slots = Math.min(rt.limit.effective - rt.inFlight, rt.room()) - forEndpoint;
    return Math.max(0, Math.min(slots, host.free() - all));
  }

  leaseUntil(): number {
    return this.deps.clock.now() + this.deps.leaseMs;
  }

  handOver(deliveries: ClaimedDelivery[]): void {
    const { host, runtimes } = this.deps;
    // Taken and handed over in one synchronous stretch, so the engine cannot have stopped or
    // forgotten the endpoint in between; should it have, the deliveries go back to pending.
    const back: ClaimedDelivery[] = [];
    const touched = new Set<EndpointRuntime>();
    for (const d of deliveries) {
      const rt = host.isRunning() ? runtimes.get(d.endpointId) : undefined;
      if (!rt) back.push(d);
      else {
        rt.queue.push(d);
        touched.add(rt);
      }
    }
    host.took(deliveries.length - back.length);
    // Sent once the callers whose commit this was have been answered: signing and handing the
    // requests to the sender thread is delivery's work, not theirs to wait for.
    if (touched.size) {
      setImmediate(() => {
        for (const rt of touched) void this.deps.dispatcher.dispatchOrRecover(rt);
      });
    }
    if (back.length) {
      const releases = back.map((d) => releaseOf(d, d.dueAt));
      this.deps.store.releaseDeliveries(releases).then(
        () => host.wake(),
        (err) =>
          this.deps.log.error({ err }, "returning taken deliveries failed; the next start will"),
      );
    }
  }
}
