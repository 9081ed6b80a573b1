/**
 * Sending what the endpoints' queues hold: as many deliveries as each endpoint's limit, its
 * circuit and the loop budget's pace allow, each attempt's outcome handed to the group-commit
 * writer, and what cannot be sent now put back or ended. The claim loop (engine.ts) fills the
 * queues; this empties them.
 */
import type { TimerHandle } from "../clock.js";
import type { ClaimedDelivery, DeliveryOutcome, Release, Store } from "../store/port.js";
import type { CircuitTransition } from "./breaker.js";
import { makeAttempt, type AttemptDeps } from "./attempt.js";
import { endedBeforeSending } from "./decide.js";
import type { EngineEvents } from "./events.js";
import type { Holdings } from "./holdings.js";
import type { LoopBudget } from "./loop-budget.js";
import type { OutcomeWriter } from "./outcome-writer.js";
import type { EndpointRuntime } from "./runtime.js";
import type { EndpointRuntimes } from "./runtimes.js";

/** What the dispatcher needs from the engine around it. */
export interface DispatchHost {
  isRunning(): boolean;
  /** Whether this worker still holds a delivery it claimed (see the engine's `holds`). */
  holds(d: ClaimedDelivery): boolean;
  /** A slot or a held delivery was freed: the claim loop may take more. */
  pumpSoon(): void;
  /** Deliveries were put back until a probe at `until`: the claim loop looks at them by then. */
  putBackUntil(releases: readonly Release[], until: number): void;
  /** A store error: the engine calls `retryFailed` a while later. */
  recoverLater(): void;
  /** The endpoint of deliveries this worker held is gone: what is left of it is removed. */
  endpointGone(endpointId: string): void;
  /**
   * In a fleet: the others may have declared this worker dead (it has not been heard for the
   * dead-after time), so what it holds may be another worker's to send now.
   */
  silenced(): boolean;
  /** Resolves once a silenced worker has been heard again (at once if it is not silenced). */
  heard(): Promise<void>;
}

export interface DispatcherDeps extends AttemptDeps {
  store: Pick<Store, "releaseDeliveries" | "saveCircuit" | "pauseEndpoint">;
  runtimes: EndpointRuntimes;
  holdings: Holdings;
  writer: OutcomeWriter;
  budget: LoopBudget;
  events: EngineEvents;
  log: { error(obj: object, msg: string): void };
  host: DispatchHost;
}

/** How long a delivery whose request hookline lost waits before it is sent again. */
const LOST_RETRY_MS = 1_000;

export class Dispatcher {
  private readonly inFlight = new Set<Promise<void>>();
  /** Set once stop() stopped waiting: answers still to come are not recorded. */
  private gaveUp = false;
  /**
   * Runtimes whose dispatch failed on a store error, or waits while the worker is silenced,
   * dispatched again by `retryFailed`.
   */
  private readonly failed = new Set<EndpointRuntime>();
  /** Endpoints with deliveries waiting for the pace, and the one timer that dispatches them. */
  private readonly paced = new Set<EndpointRuntime>();
  private paceTimer: TimerHandle | null = null;

  constructor(private readonly deps: DispatcherDeps) {}

  /** Records answers again (after a restart of the engine). */
  resume(): void {
    this.gaveUp = false;
  }

  /** Stops dispatching for the pace; nothing waits for it any more. */
  stopPacing(): void {
    if (this.paceTimer) this.deps.clock.clearTimer(this.paceTimer);
    this.paceTimer = null;
    this.paced.clear();
  }

  /** Settles once every request out now has finished. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * Answers still to come are not recorded: their deliveries stay claimed in the store, sent
   * again after a restart or by the fleet.
   */
  giveUp(): void {
    this.gaveUp = true;
  }

  /** Requests out now. */
  inFlightCount(): number {
    return this.inFlight.size;
  }

  /**
   * Dispatches with nobody to hand a failure to (after an attempt, after a claim): a store error
   * is logged, and the endpoint dispatched again on recovery with its queue as it was.
   * Never rejects: Node 20 ends the process on an unhandled rejection.
   */
  async dispatchOrRecover(rt: EndpointRuntime): Promise<void> {
    try {
      await this.dispatch(rt);
    } catch (err) {
      this.deps.log.error(
        { err, endpointId: rt.endpoint.id, waiting: rt.queue.length },
        "dispatching an endpoint's deliveries failed; trying again in 1 s",
      );
      this.failed.add(rt);
      this.deps.host.recoverLater();
    }
  }

  /** Dispatches again every endpoint whose dispatch failed; each failure is caught again. */
  async retryFailed(): Promise<void> {
    const runtimes = [...this.failed];
    this.failed.clear();
    for (const rt of runtimes) await this.dispatchOrRecover(rt);
  }

  /** Whether deliveries in hand wait for the pace (an endpoint may have sent them meanwhile). */
  waitingForPace(): boolean {
    for (const rt of this.paced) if (rt.queue.length > 0) return true;
    return false;
  }

  /**
   * Starts as many queued deliveries as the endpoint's limit and circuit allow. Throws on a
   * store error, leaving every delivery it had not started in the queue.
   */
  private async dispatch(rt: EndpointRuntime): Promise<void> {
    const { host, holdings } = this.deps;
    if (rt.stale && !(await this.deps.runtimes.refresh(rt))) {
      this.forgetDeleted(rt);
      return;
    }
    rt.lastActiveAt = this.deps.clock.now();
    if (rt.leaving) {
      // Being handed to another worker: what waits goes back, nothing new starts here.
      await this.putBack(rt, (d) => d.dueAt);
      return;
    }
    if (rt.endpoint.disabled) {
      for (const d of rt.queue.splice(0)) this.endDisabled(rt, d);
      return;
    }
    if (rt.queue.length && host.silenced()) {
      // Its new owner may be sending these already: they wait, in hand, until the worker is
      // heard again (and are dropped if it learns then that it was declared dead).
      this.failed.add(rt);
      host.recoverLater();
      return;
    }
    // Checked here, not awaited on every dispatch: most endpoints have no rate limit, and their
    // circuit is closed.
    if (rt.room() < 0) await this.handBackBeyondRoom(rt);
    while (rt.queue.length && host.isRunning()) {
      if (rt.inFlight >= rt.limit.effective) {
        // The probe may have taken the endpoint's last slot (its only one at a limit of 1): the
        // rest wait for its result in the store, as they do behind a probe at any limit, not in
        // hand, claimed, read as being sent while it is out.
        if (rt.breaker.isOpen()) await this.holdForProbe(rt);
        return;
      }
      const throttled = rt.throttle?.wait() ?? 0;
      if (throttled > 0) return this.waitForThrottle(rt, throttled);
      const wait = this.deps.budget.take();
      if (wait > 0) return this.waitForPace(rt, wait);
      const admission = rt.breaker.admit(rt.inFlight);
      if (!admission.allowed) {
        if (rt.breaker.isOpen()) await this.holdForProbe(rt);
        return;
      }
      const d = rt.queue.shift()!;
      if (!host.holds(d)) {
        // Another worker's now (see `holds`): the last point before the request goes out.
        if (admission.probe) rt.breaker.cancelProbe();
        holdings.claimed--;
        continue;
      }
      const expired = endedBeforeSending(d, rt.policy);
      if (expired) {
        // Not sent, so not the probe either: another delivery may be.
        if (admission.probe) rt.breaker.cancelProbe();
        this.endUnsent(rt, d, expired);
        holdings.claimed--;
        host.pumpSoon();
        continue;
      }
      // Taken only now, as the request goes: a delivery that went no further spent none.
      rt.throttle?.take();
      rt.inFlight++;
      const p = this.attempt(rt, d, admission.probe).finally(() => this.inFlight.delete(p));
      this.inFlight.add(p);
    }
  }

  /**
   * Dispatches the endpoint again once the pace lets another delivery start (loop-budget.ts).
   * Endpoints waiting for the pace are dispatched in the order they came to wait, each taking
   * what the pace allows, so none is passed over for long.
   */
  private waitForPace(rt: EndpointRuntime, ms: number): void {
    this.paced.add(rt);
    if (this.paceTimer) return;
    this.paceTimer = this.deps.clock.setTimer(() => {
      this.paceTimer = null;
      this.dispatchPaced();
    }, ms);
  }

  /**
   * Dispatches the endpoints waiting for the pace now: at the pace's timer, or as soon as the
   * pace is lifted, when waiting for the timer would hold them for nothing.
   */
  dispatchPaced(): void {
    if (this.paceTimer) this.deps.clock.clearTimer(this.paceTimer);
    this.paceTimer = null;
    if (this.paced.size === 0) return;
    const waiting = [...this.paced];
    this.paced.clear();
    for (const r of waiting) void this.dispatchOrRecover(r);
    this.deps.host.pumpSoon();
  }

  /** Dispatches the endpoint again once its rate limit lets another request start. */
  private waitForThrottle(rt: EndpointRuntime, ms: number): void {
    if (rt.throttleTimer) return;
    rt.throttleTimer = this.deps.clock.setTimer(() => {
      rt.throttleTimer = null;
      void this.dispatchOrRecover(rt);
      // What it sends frees room for the claim to bring this endpoint's next second.
      this.deps.host.pumpSoon();
    }, ms);
  }

  /**
   * A rate-limited endpoint holds one second of requests at most, and one whose circuit is
   * half-open its trickle's (runtime.ts, `room`), but a claim may bring it more (a scan's batch is
   * not counted by endpoint, nor is an endpoint known to be limited before it is loaded; the probe
   * that turns a circuit half-open makes every delivery it held due at once), and its limit may
   * be lowered while deliveries wait. Held, they would wait in this process's hands, filling them
   * while every other endpoint waited too, and read as being sent: those beyond go back to the
   * store, to be claimed through its index as it sends.
   */
  private async handBackBeyondRoom(rt: EndpointRuntime): Promise<void> {
    const over = Math.min(rt.queue.length, -rt.room());
    if (over <= 0) return;
    await this.putBack(rt, (d) => d.dueAt, rt.queue.length - over);
    this.deps.holdings.backlogged.add(rt);
  }

  /**
   * The endpoint was deleted, and its deliveries with it: those waiting here are dropped, not
   * sent to its old URL with its old secret. What is in flight finishes; its outcome finds no row.
   */
  private forgetDeleted(rt: EndpointRuntime): void {
    const { holdings, runtimes, host } = this.deps;
    holdings.claimed -= rt.queue.splice(0).length;
    host.endpointGone(rt.endpoint.id);
    holdings.backlogged.delete(rt);
    if (rt.inFlight === 0 && runtimes.get(rt.endpoint.id) === rt) runtimes.delete(rt.endpoint.id);
  }

  /** The circuit is open: put waiting deliveries back until the probe, spending no attempts. */
  private async holdForProbe(rt: EndpointRuntime): Promise<void> {
    const until = rt.breaker.snapshot().nextProbeAt ?? this.deps.clock.now();
    // A retry the probe would put off past its window ends here (exhausted, not sent).
    const kept: ClaimedDelivery[] = [];
    for (const d of rt.queue) {
      const expired = endedBeforeSending({ ...d, dueAt: Math.max(d.dueAt, until) }, rt.policy);
      if (!expired) kept.push(d);
      else {
        this.endUnsent(rt, d, expired);
        this.deps.holdings.claimed--;
      }
    }
    rt.queue.splice(0, rt.queue.length, ...kept);
    const releases = await this.putBack(rt, (d) => Math.max(d.dueAt, until));
    this.deps.host.putBackUntil(releases, until);
  }

  /**
   * Returns an endpoint's waiting deliveries to pending (those from `from` on), each due at
   * `at(d)`. They leave the queue while the store writes, so that no other dispatch starts or
   * returns them meanwhile; should the write fail, they are back where they were (or at its end,
   * should it have been sent from meanwhile), still counted as held, and the error is thrown.
   */
  private async putBack(
    rt: EndpointRuntime,
    at: (d: ClaimedDelivery) => number,
    from = 0,
  ): Promise<Release[]> {
    const waiting = rt.queue.splice(from);
    const releases = waiting.map((d) => releaseOf(d, at(d)));
    try {
      await this.deps.store.releaseDeliveries(releases);
    } catch (err) {
      rt.queue.splice(Math.min(from, rt.queue.length), 0, ...waiting);
      throw err;
    }
    this.deps.holdings.claimed -= waiting.length;
    return releases;
  }

  private endDisabled(rt: EndpointRuntime, d: ClaimedDelivery): void {
    this.endUnsent(rt, d, {
      kind: "dead",
      failureClass: "permanent",
      reason: `endpoint disabled${rt.endpoint.disabledReason ? `: ${rt.endpoint.disabledReason}` : ""}`,
    });
    this.release(rt, false);
  }

  /** Records the end of a held delivery that is not sent (dead-lettered, replayable). */
  private endUnsent(rt: EndpointRuntime, d: ClaimedDelivery, next: DeliveryOutcome["next"]): void {
    this.deps.writer.push({
      deliveryId: d.id,
      endpointId: rt.endpoint.id,
      messageId: d.messageId,
      appId: d.appId,
      at: this.deps.clock.now(),
      attempt: null,
      signatureHeaders: {},
      next,
      retryAfter: null,
      disableEndpoint: null,
      claimedBy: d.claimedBy,
      replay: d.origin === "replay",
    });
  }

  private async attempt(rt: EndpointRuntime, d: ClaimedDelivery, probe: boolean): Promise<void> {
    const made = await makeAttempt(this.deps, rt, d, probe, this.stillHeld);
    if (this.gaveUp) return;
    if ("lost" in made) {
      if (!this.deps.host.holds(d)) return this.release(rt, true);
      return this.putBackLost(rt, d, probe);
    }
    // Sent before this worker was declared dead: the store would keep no outcome of it (the
    // delivery is the worker's holding it now), so none is written nor announced, and the
    // endpoint's circuit and settings are its owner's to change.
    if ("notHeld" in made) return this.release(rt, true);
    const { outcome, decision, transition } = made;
    // Read after the request: settings reloaded while it was out replace the endpoint object,
    // and a 410 must disable the one the next dispatch looks at.
    const endpoint = rt.endpoint;
    this.deps.writer.push(outcome);
    // Every request in flight when the receiver turned to 410 comes back with it: announce once.
    if (decision.disable && !endpoint.disabled) {
      endpoint.disabled = true;
      endpoint.disabledReason = decision.disable;
      this.deps.events.emit({
        type: "endpoint.disabled",
        endpointId: endpoint.id,
        reason: decision.disable,
        trigger: "automatic",
      });
    }
    if (transition) await this.onTransition(rt, transition);
    this.release(rt, true);
  }

  /**
   * Whether this worker still holds `d` as its answer comes. A silenced worker (paused, or cut off
   * from the database, for half the dead-after time) may have been declared dead without knowing
   * it yet, so the answer waits for its next heartbeat to tell: judged at once, a paused worker's
   * answers that failed opened the circuit of an endpoint another worker owned by then, and held
   * that endpoint's deliveries until a probe minutes away.
   */
  private readonly stillHeld = (d: ClaimedDelivery): boolean | Promise<boolean> => {
    const { host } = this.deps;
    return host.silenced() ? host.heard().then(() => host.holds(d)) : host.holds(d);
  };

  /**
   * A request hookline lost on its own side (a sender thread stopped): the receiver did nothing
   * wrong, so no attempt is recorded and the breaker hears nothing; the delivery goes back to be
   * sent again a little later (a request that kept losing its thread would otherwise go round
   * at once, for ever). A probe lost lets another be admitted.
   */
  private async putBackLost(
    rt: EndpointRuntime,
    d: ClaimedDelivery,
    probe: boolean,
  ): Promise<void> {
    if (probe) rt.breaker.cancelProbe();
    rt.inFlight--;
    const release = releaseOf(d, this.deps.clock.now() + LOST_RETRY_MS);
    try {
      await this.deps.store.releaseDeliveries([release]);
    } catch (err) {
      // Still held: it waits at the head of its endpoint's queue until the store is back.
      rt.queue.unshift(d);
      this.deps.log.error(
        {
          err,
          messageId: d.messageId,
          deliveryId: d.id,
          endpointId: rt.endpoint.id,
          appId: d.appId,
        },
        "putting back a delivery whose request hookline lost failed; trying again in 1 s",
      );
      this.failed.add(rt);
      this.deps.host.recoverLater();
      return;
    }
    this.deps.holdings.claimed--;
    this.deps.host.putBackUntil([release], release.at);
    void this.dispatchOrRecover(rt);
    this.deps.host.pumpSoon();
  }

  private release(rt: EndpointRuntime, wasInFlight: boolean): void {
    if (wasInFlight) rt.inFlight--;
    this.deps.holdings.claimed--;
    void this.dispatchOrRecover(rt);
    this.deps.host.pumpSoon();
  }

  private async onTransition(rt: EndpointRuntime, t: CircuitTransition): Promise<void> {
    const snapshot = rt.breaker.snapshot();
    try {
      await this.deps.store.saveCircuit(rt.endpoint.id, snapshot, t);
      if (t.to === "open" && snapshot.nextProbeAt !== null) {
        await this.deps.store.pauseEndpoint(rt.endpoint.id, snapshot.nextProbeAt, rt.policy.ladder);
      }
    } catch (err) {
      this.deps.log.error({ err, endpointId: rt.endpoint.id }, "saving circuit state failed");
    }
    this.deps.events.emit({
      type: "circuit",
      endpointId: rt.endpoint.id,
      transition: t,
      nextProbeAt: snapshot.nextProbeAt,
    });
  }
}

/** A held delivery put back to pending, due at `at` (only while its claimer still holds it). */
export function releaseOf(d: ClaimedDelivery, at: number): Release {
  return { deliveryId: d.id, at, claimedBy: d.claimedBy };
}
