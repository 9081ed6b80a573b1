/**
 * The delivery engine: claims due deliveries in batches, holds each in its endpoint's queue until
 * the endpoint has a free slot and a closed (or probing) circuit, sends it, and records the
 * outcome through the group-commit writer. One engine runs per process.
 *
 * This file is the claim loop and the engine's life; the parts it wires together are the
 * dispatcher (sending what the queues hold), the intake (taking deliveries as they are accepted),
 * the scan cursor (where the scan of due rows stands), the holdings (what this process holds) and
 * the fleet host (its side of a shared store).
 */
import type { Clock, Random, TimerHandle } from "../clock.js";
import { newId } from "../ids.js";
import type { ClaimedDelivery, Intake, Store } from "../store/port.js";
import type { AdaptiveSettings } from "./adaptive-limit.js";
import type { BreakerSettings } from "./breaker.js";
import type {
  DeliveryBudget,
  EndpointLiveStatus,
  EndpointPinning,
  EngineControl,
} from "./control.js";
import { Dispatcher, releaseOf } from "./dispatcher.js";
import { EngineEvents } from "./events.js";
import { ScanCursor } from "./scan-cursor.js";
import { Fleet, type FleetSettings } from "./fleet.js";
import { engineFleetHost } from "./fleet-host.js";
import { Holdings } from "./holdings.js";
import { EngineIntake } from "./intake.js";
import { DEFAULT_LOOP_BUDGET, LoopBudget, type LoopBudgetSettings } from "./loop-budget.js";
import { OutcomeWriter } from "./outcome-writer.js";
import type { PolicyDefaults } from "./policy.js";
import type { EndpointRuntime } from "./runtime.js";
import { EndpointRuntimes } from "./runtimes.js";
import type { Sender } from "./sender.js";
import { finishedWithin } from "../finished-within.js";
import { StopDeadline } from "../stop-deadline.js";

export interface EngineSettings {
  policyDefaults: PolicyDefaults;
  breaker: BreakerSettings;
  adaptive: AdaptiveSettings;
  /** Deliveries claimed per statement. */
  batchSize: number;
  /** Deliveries held by this process at once (in flight plus waiting for a slot). */
  maxClaimed: number;
  /** How long a claim is reserved for this process (used by multi-process stores). */
  leaseMs: number;
  /** How long stop() lets in-flight requests finish, unless given a deadline of its own. */
  shutdownTimeoutMs: number;
  /** With a store shared by several processes: how this worker takes part (see fleet.ts). */
  fleet?: FleetSettings;
  /** Overrides of the loop budget's defaults (loop-budget.ts), for tests that need them. */
  loopBudget?: Partial<LoopBudgetSettings>;
}

export interface EngineLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface EngineDeps {
  store: Store;
  sender: Sender;
  clock: Clock;
  random: Random;
  settings: EngineSettings;
  events?: EngineEvents;
  logger?: EngineLogger;
}

/**
 * However long nothing is due, the engine scans from the first due row at least this often: a
 * safety net should anything ever make a delivery due behind the scan cursor without saying so.
 * An idle hookline thus runs one indexed query a minute.
 */
const RESCAN_MS = 60_000;

/**
 * How long a stop waits for the outcomes of finished requests to be written even once its
 * deadline has passed (the runbook counts it in a stop's length).
 */
const MIN_FLUSH_MS = 1_000;

/** A single process forgets an endpoint's runtime after this long without work. */
const IDLE_EVICT_MS = 10 * 60_000;

/**
 * Outcomes are committed at most this long after the first of a batch finished. At moderate load
 * answers come back one or two per turn of the loop, and a commit per turn cost the main thread a
 * transaction per one or two deliveries: accepting and delivering 1,000 messages/s on a slow VM,
 * the main thread was busy 68–71 % of the time, and 62–67 % with this window (session 11,
 * benchmarks-history.md). A crash within the window repeats those attempts, as for any in flight.
 */
const OUTCOME_WINDOW_MS = 5;

/** After a store failure while admitting or dispatching, the engine tries again this much later. */
const RECOVERY_MS = 1000;

/** Runs deliveries; see the module comment. */
export class DeliveryEngine implements EngineControl, EndpointPinning {
  readonly events: EngineEvents;
  private readonly runtimes: EndpointRuntimes;
  private readonly writer: OutcomeWriter;
  private readonly holdings = new Holdings();
  private readonly dispatcher: Dispatcher;
  private readonly intakeHandle: EngineIntake;
  private running = false;
  private pumping = false;
  /** Settles when the claim loop under way ends (stop() waits for it). */
  private pumped: Promise<void> = Promise.resolve();
  private pumpAgain = false;
  private pumpScheduled = false;
  private timer: TimerHandle | null = null;
  /** When `timer` fires (the clock's time); infinite while none is armed. */
  private timerAt = Number.POSITIVE_INFINITY;
  private readonly cursor = new ScanCursor();
  /** When the scan last started from the first due row (the safety net below RESCAN_MS). */
  private lastFullScanAt = Number.NEGATIVE_INFINITY;
  private readonly budget: LoopBudget;
  private readonly log: EngineLogger;
  /** Present when the store is shared with other worker processes. */
  readonly fleet: Fleet | null = null;
  /**
   * Set while the scan goes on endpoint by endpoint (`store.dueEndpoints`, after the id in
   * `after`): a window of the walk in due order ran out stepping over full endpoints' rows, so
   * the rest of what was due at `now` is found by endpoint, whose cost does not grow with the
   * length of a full endpoint's backlog. What it finds is claimed as adoptable.
   */
  private byEndpoint: { now: number; after: string } | null = null;
  private recoveryTimer: TimerHandle | null = null;
  /** Deleted endpoints whose leftovers are being cleared (see clearDeleted). */
  private readonly clearing = new Set<string>();

  constructor(private readonly deps: EngineDeps) {
    this.runtimes = new EndpointRuntimes(deps);
    this.events = deps.events ?? new EngineEvents();
    this.log = deps.logger ?? { warn: () => {}, error: () => {} };
    this.budget = new LoopBudget(
      {
        ...DEFAULT_LOOP_BUDGET,
        max: deps.settings.maxClaimed,
        // On SQLite a caller's wait is time on this thread: the commit runs here, behind whatever
        // delivery is doing. On PostgreSQL most of it is the database's round trips, which
        // delivery holding back would not shorten; there, loop lag alone judges.
        slowCallerMs: deps.store.kind === "sqlite" ? DEFAULT_LOOP_BUDGET.slowCallerMs : null,
        ...deps.settings.loopBudget,
      },
      () => this.holdings.claimed,
      () => this.deps.clock.now(),
      // Sender threads run below this thread while callers are answered, and level with it after.
      (calling) => deps.sender.yieldToCallers?.(calling),
      () => this.dispatcher.dispatchPaced(),
    );
    this.writer = new OutcomeWriter(deps.store, {
      maxBatch: 512,
      windowMs: OUTCOME_WINDOW_MS,
      retryDelayMs: 1000,
      // Only what the store kept: an answer that reached this worker after the others declared
      // it dead, before it noticed, is no attempt of the delivery (its new owner makes one).
      onCommitted: (kept, changes) => {
        // A retry is due in the store only now. The pump that followed its attempt may have run
        // before this commit and armed the timer without it, so it is announced as new work.
        // So are an endpoint's replays held for its probe, brought due as it was disabled.
        let retryAt = Number.POSITIVE_INFINITY;
        for (const o of kept) {
          if (o.next.kind === "retry") retryAt = Math.min(retryAt, o.next.at);
          if (o.disableEndpoint) retryAt = Math.min(retryAt, o.at);
        }
        if (retryAt !== Number.POSITIVE_INFINITY) this.wake(retryAt);
        this.events.announce(kept, changes);
      },
      onError: (err) => this.log.error({ err }, "recording attempt outcomes failed; retrying"),
      onRefused: (o, err) =>
        this.log.error(
          {
            err,
            messageId: o.messageId,
            deliveryId: o.deliveryId,
            endpointId: o.endpointId,
            appId: o.appId,
          },
          "the store refused an attempt's outcome; its delivery stays claimed and is made " +
            "again when claims are next recovered",
        ),
    });
    this.dispatcher = new Dispatcher({
      ...deps,
      runtimes: this.runtimes,
      holdings: this.holdings,
      writer: this.writer,
      budget: this.budget,
      events: this.events,
      log: this.log,
      host: {
        isRunning: () => this.running,
        holds: (d) => this.holds(d),
        pumpSoon: () => this.schedulePump(),
        putBackUntil: (releases, until) => {
          for (const r of releases) this.cursor.announce(r.at);
          // Only ever sooner: the armed timer may be for another endpoint's delivery, due before
          // the probe (the dispatcher may have armed it while this write was under way).
          if (this.timer === null || until < this.timerAt) {
            this.armRetry(Math.max(0, until - this.deps.clock.now()));
          }
        },
        recoverLater: () => this.armRecovery(),
        endpointGone: (id) => this.clearDeleted(id),
        silenced: () => this.fleet?.silenced(this.deps.clock.now()) ?? false,
        heard: () => this.fleet?.heard() ?? Promise.resolve(),
      },
    });
    this.intakeHandle = new EngineIntake({
      clock: deps.clock,
      leaseMs: deps.settings.leaseMs,
      store: deps.store,
      runtimes: this.runtimes,
      holdings: this.holdings,
      dispatcher: this.dispatcher,
      log: this.log,
      host: {
        isRunning: () => this.running,
        caughtUp: () => this.cursor.isQuiet(deps.clock.now()),
        free: () => this.free(),
        took: (count) => this.took(count),
        wake: () => this.wake(),
      },
    });
    const coordination = deps.store.coordination;
    if (coordination && deps.settings.fleet) {
      const host = engineFleetHost({
        holdings: this.holdings,
        runtimes: this.runtimes,
        clock: deps.clock,
        log: this.log,
        idleReleaseMs: deps.settings.fleet.idleReleaseMs ?? 10_000,
        holdsUnwritten: (id) => this.writer.holdsUnwritten(id),
        wake: (dueAt) => this.wake(dueAt),
        invalidateEndpoint: (id) => this.invalidateEndpoint(id),
        invalidateApplication: (id) => this.invalidateApplication(id),
        pumpSoon: () => this.schedulePump(),
      });
      this.fleet = new Fleet(coordination, deps.clock, deps.settings.fleet, host, () =>
        newId("wkr"),
      );
    }
  }

  /** Puts deliveries interrupted by a crash back in line, then starts dispatching. */
  async start(): Promise<void> {
    // Alone, whatever is claimed was this process's before a crash; in a fleet, only what dead
    // workers held is put back (by the fleet's reaping).
    if (this.fleet) await this.fleet.start();
    else await this.deps.store.recoverInflight(this.deps.clock.now());
    this.running = true;
    this.dispatcher.resume();
    this.writer.resume();
    this.wake();
  }

  /**
   * Stops claiming, lets in-flight requests finish until `deadline` (by default the shutdown
   * timeout from now; a stopping process passes what is left of its own), returns waiting ones
   * to the queue.
   */
  async stop(deadline = new StopDeadline(this.deps.settings.shutdownTimeoutMs)): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.budget.rest();
    if (this.timer) this.deps.clock.clearTimer(this.timer);
    if (this.recoveryTimer) this.deps.clock.clearTimer(this.recoveryTimer);
    this.dispatcher.stopPacing();
    // A claim under way brings its deliveries once the queues below were emptied: they would
    // stay claimed, in a fleet by a worker that has left. The loop ends after that claim.
    await this.pumped;
    const releases = [];
    for (const rt of this.runtimes.values()) {
      for (const d of rt.queue.splice(0)) releases.push(releaseOf(d, d.dueAt));
    }
    for (const d of this.holdings.unadmitted.splice(0)) releases.push(releaseOf(d, d.dueAt));
    this.holdings.claimed -= releases.length;
    try {
      await this.deps.store.releaseDeliveries(releases);
    } catch (err) {
      // Still let the requests out finish and their outcomes be written: a store that failed
      // this once may take them, and each one it does is a delivery not sent twice. What was not
      // handed back stays claimed, as what is still out does below.
      this.log.error(
        { err, deliveries: releases.length },
        "stopping without handing back queued deliveries: the store failed; they are sent after restart",
      );
    }
    await finishedWithin(deadline.leftMs(), this.dispatcher.settled());
    // Whatever is still out stays claimed in the store: retried after restart (alone), or by the
    // others once this worker's heartbeat is old enough (in a fleet, which otherwise gets this
    // worker's endpoints back at once). The sender is closed next, which ends those requests with
    // an error of its own making: no attempt of theirs is recorded, as none has an answer.
    this.dispatcher.giveUp();
    const givenUp = this.dispatcher.inFlightCount();
    if (givenUp > 0) {
      // Said, as the unwritten outcomes below are: the operator sees why they arrive twice.
      this.log.warn(
        { requests: givenUp, shutdownTimeoutMs: this.deps.settings.shutdownTimeoutMs },
        "stopping without the answers of requests still in flight after the shutdown timeout (HOOKLINE_SHUTDOWN_TIMEOUT_MS); their deliveries are sent again after restart",
      );
    }
    // The outcomes of the requests that finished are written, unless the store is away past the
    // deadline: their deliveries then stay claimed, and are sent again after restart. A store
    // that answers writes them in milliseconds; the floor is for one that is merely slow, as each
    // outcome written is a delivery not sent twice.
    const unwritten = await this.writer.flushWithin(Math.max(deadline.leftMs(), MIN_FLUSH_MS));
    if (unwritten > 0) {
      this.log.error(
        { unwritten },
        "stopping without recording attempt outcomes: the store is unavailable; their deliveries are sent again after restart",
      );
    }
    await this.fleet?.stop(this.dispatcher.inFlightCount() === 0 && unwritten === 0);
  }

  wake(dueAt?: number): void {
    if (dueAt !== undefined && this.dueLater(dueAt)) return;
    this.cursor.announce(dueAt ?? Number.MIN_SAFE_INTEGER);
    this.schedulePump();
  }

  /**
   * Work announced while quiet that falls due only later (a message with a later deliverAt): a
   * scan now could find nothing, and on SQLite each would be a write transaction, about a third
   * of the main thread's work per such message at 1,000 a second. The quiet is cut short at its
   * due time instead, and the timer brought forward to it. Only while no claim runs (its end
   * decides the quiet and the timer afresh).
   */
  private dueLater(at: number): boolean {
    const now = this.deps.clock.now();
    if (this.pumping || this.timer === null) return false;
    // Everything due by now has been looked at, and the cursor never passes now: it stays.
    if (!this.cursor.quietUntilDue(at, now)) return false;
    if (at < this.timerAt) this.setTimer(at - now);
    // A timer time already past: the clock jumped ahead since it was armed (it fires by its own
    // length, up to RESCAN_MS away), or the loop is late for it. It fires now, and the claim it
    // runs finds `at` and arms the timer for it; armed for `at` itself, what it was kept for (the
    // rescan) would wait as long.
    else if (this.timerAt <= now) this.setTimer(0);
    return true;
  }

  private schedulePump(): void {
    if (!this.running || this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      void this.pump();
    });
  }

  async pin(endpointId: string): Promise<boolean> {
    // Alone on its store, the engine is the only one that ever sends.
    if (this.fleet && !(await this.fleet.take(endpointId))) return false;
    this.holdings.pin(endpointId, this.runtimes.get(endpointId));
    return true;
  }

  unpin(endpointId: string): void {
    this.holdings.pinned.delete(endpointId);
    // Taken with nothing claimed since: no runtime of it will fall idle to hand it back.
    if (this.fleet && !this.runtimes.get(endpointId)) this.holdings.strays.add(endpointId);
  }

  invalidateEndpoint(endpointId: string): void {
    this.runtimes.invalidateEndpoint(endpointId);
    this.schedulePump();
  }

  invalidateApplication(appId: string): void {
    this.runtimes.invalidateApplication(appId);
    this.schedulePump();
  }

  callerWaited(ms: number): void {
    this.budget.callerWaited(ms);
  }

  endpointStatus(endpointId: string): EndpointLiveStatus | null {
    return this.runtimes.get(endpointId)?.status() ?? null;
  }

  deliveryBudget(): DeliveryBudget {
    // Read at each scrape and alert evaluation, not while delivering: a walk of what is held.
    let oldestWaitingDueAt: number | null = null;
    for (const rt of this.runtimes.values()) {
      for (const d of rt.queue) {
        if (oldestWaitingDueAt === null || d.dueAt < oldestWaitingDueAt)
          oldestWaitingDueAt = d.dueAt;
      }
    }
    return {
      held: this.holdings.claimed,
      limit: this.holdLimit(),
      pace: this.budget.pace,
      oldestWaitingDueAt,
    };
  }

  /** Alone with its store, the engine takes deliveries as they are accepted (intake.ts). */
  intake(): Intake | null {
    return this.fleet ? null : this.intakeHandle;
  }

  // ---- claiming -----------------------------------------------------------------------------

  private async pump(): Promise<void> {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    let ended = (): void => {};
    this.pumped = new Promise((resolve) => (ended = resolve));
    try {
      do {
        this.pumpAgain = false;
        if (!this.running) break;
        // Full: a finishing attempt frees a slot and wakes the pump again.
        if (this.free() <= 0) break;
        // Deliveries in hand already wait for the pace: claiming more now would only add a
        // commit per freed slot (a claim of one, each). Once none waits, claims resume in batches
        // (the pace's timer wakes the pump, should nothing else).
        if (this.dispatcher.waitingForPace()) break;
        const now = this.deps.clock.now();
        // Kept by the clock, not by a timer that every wake-up would push back under load. A
        // last scan later than now means the clock was set back: the scan restarts now, as the
        // position reached then is ahead of rows due by the new time.
        if (now - this.lastFullScanAt >= RESCAN_MS || now < this.lastFullScanAt) {
          this.lastFullScanAt = now;
          this.cursor.restart();
          this.byEndpoint = null;
          if (!this.fleet) this.evictIdle(now);
        }
        const leaseUntil = now + this.deps.settings.leaseMs;
        this.expireHandOvers(now);
        await this.refillBacklogged(now, leaseUntil);
        const free = this.free();
        if (free <= 0) break;
        // The armed timer wakes the pump when the next delivery falls due.
        if (this.cursor.isQuiet(now) && this.timer !== null) break;
        const exclude = this.fullEndpoints();
        if (this.byEndpoint) {
          await this.lookByEndpoint(this.byEndpoint, exclude);
          continue;
        }
        const limit = Math.min(free, this.deps.settings.batchSize);
        const announced = this.cursor.beginClaim();
        const scan = await this.holdings.numbered(() =>
          this.deps.store.scanDue({
            now,
            limit,
            excludeEndpoints: exclude,
            leaseUntil,
            from: this.cursor.position,
            worker: this.fleet?.claimingWorker(now),
          }),
        );
        const batch = scan.claimed;
        this.took(batch.length);
        await this.admit(batch);
        this.cursor.scanned(scan.reached, now);
        if (batch.length === limit) this.pumpAgain = true;
        // The store's window ran out before the batch filled, stepping over full endpoints' rows:
        // look on by endpoint, once whatever else waits on this thread has had its turn.
        else if (scan.reached) {
          this.byEndpoint = { now, after: "" };
          this.schedulePump();
        } else await this.armTimer(now, announced);
      } while (this.pumpAgain && this.running);
    } catch (err) {
      this.log.error({ err }, "claiming deliveries failed; trying again in 1 s");
      this.armRetry(1000);
    } finally {
      this.pumping = false;
      ended();
    }
  }

  /**
   * One window of the look by endpoint. Once it has looked at every endpoint, everything due at
   * its start outside full endpoints is claimed or adoptable, and the cursor moves there (not past
   * anything announced since the scan before it began).
   */
  private async lookByEndpoint(
    look: { now: number; after: string },
    exclude: readonly string[],
  ): Promise<void> {
    const found = await this.deps.store.dueEndpoints({
      now: look.now,
      after: look.after,
      excludeEndpoints: exclude,
    });
    for (const id of found.endpoints) this.holdings.adoptable.add(id);
    if (found.reached !== null) look.after = found.reached;
    else {
      this.byEndpoint = null;
      this.cursor.scanned(null, look.now);
    }
    this.schedulePump();
  }

  private free(): number {
    return this.holdLimit() - this.holdings.claimed;
  }

  /** Counts deliveries newly in this process's hands; the budget is judged while it holds any. */
  private took(count: number): void {
    this.holdings.claimed += count;
    if (this.holdings.claimed > 0) this.budget.watch();
  }

  /** The most deliveries this process may hold now: the engine's cap, or the loop budget. */
  private holdLimit(): number {
    return Math.min(this.deps.settings.maxClaimed, this.budget.current);
  }

  /**
   * Forgets endpoints idle for a while (nothing in hand, circuit closed), so a process that has
   * met tens of thousands of endpoints does not keep them all; one that comes back is loaded
   * again. In a fleet, handing idle endpoints back does the same.
   */
  private evictIdle(now: number): void {
    for (const [id, rt] of this.runtimes) {
      // An open circuit keeps its endpoint for the probe to come, unless the endpoint changed
      // (or was deleted: nothing would ever dispatch to it again); the circuit is in the store.
      const held = rt.stale ? rt.inFlight > 0 || rt.queue.length > 0 : rt.busy;
      if (held || now - rt.lastActiveAt < IDLE_EVICT_MS || this.holdings.backlogged.has(rt))
        continue;
      this.runtimes.delete(id);
    }
    this.runtimes.forgetUnusedApplications();
  }

  /**
   * Endpoints handed over whose quiet time has ended: nobody may have taken them meanwhile (the
   * taker handed them on, or died), so they are looked at again. Before the refills, which pass
   * over an endpoint still in its quiet time, and not only before a scan, which a quiet pump
   * (see the cursor) does not reach.
   */
  private expireHandOvers(now: number): void {
    for (const [id, until] of this.holdings.handedOver) {
      if (until > now) continue;
      this.holdings.handedOver.delete(id);
      this.holdings.adoptable.add(id);
    }
  }

  /** Full endpoints are skipped by the scan and remembered, to be refilled once they have room. */
  private fullEndpoints(): string[] {
    const out = [...this.holdings.handedOver.keys()];
    for (const [id, rt] of this.runtimes) {
      if (rt.leaving) {
        out.push(id);
        continue;
      }
      if (!rt.isFull()) continue;
      out.push(id);
      this.holdings.backlogged.add(rt);
    }
    return out;
  }

  /** Claims for endpoints the scan skipped while they were full, through their own index. */
  private async refillBacklogged(now: number, leaseUntil: number): Promise<void> {
    for (const rt of this.holdings.backlogged) {
      const free = Math.min(this.free(), this.deps.settings.batchSize);
      if (free <= 0) return;
      if (rt.leaving) this.holdings.backlogged.delete(rt);
      if (rt.isFull() || rt.leaving) continue;
      const room = Math.min(free, rt.room());
      if ((await this.claimEndpoint(rt.endpoint.id, room, now, leaseUntil)) < room) {
        this.holdings.backlogged.delete(rt);
      }
    }
    for (const id of this.holdings.adoptable) {
      const free = Math.min(this.free(), this.deps.settings.batchSize);
      if (free <= 0) return;
      const rt = this.runtimes.get(id);
      // A full endpoint is refilled as backlogged (put there now: the cursor may already have
      // moved past its rows); one being let go, or handed over a moment ago, is not taken back
      // now (the handed-over one is looked at again when its quiet ends).
      if (rt && !rt.leaving && rt.isFull()) this.holdings.backlogged.add(rt);
      if (rt?.leaving || rt?.isFull() || this.holdings.handedOver.has(id)) {
        this.holdings.adoptable.delete(id);
        continue;
      }
      const room = Math.min(free, rt?.room() ?? free);
      if ((await this.claimEndpoint(id, room, now, leaseUntil)) < room)
        this.holdings.adoptable.delete(id);
    }
  }

  /** Claims up to `room` of one endpoint's due deliveries through its own index; how many. */
  private async claimEndpoint(
    endpointId: string,
    room: number,
    now: number,
    leaseUntil: number,
  ): Promise<number> {
    const own = await this.holdings.numbered(() =>
      this.deps.store.claimDue({
        now,
        limit: room,
        excludeEndpoints: [],
        leaseUntil,
        endpointId,
        worker: this.fleet?.claimingWorker(now),
      }),
    );
    this.took(own.length);
    await this.admit(own);
    return own.length;
  }

  /**
   * Sleeps until the next delivery falls due; new messages and finished attempts wake it earlier.
   * Everything due by `now` outside full endpoints was just claimed, so only later rows count.
   */
  private async armTimer(now: number, announcedBeforeScan: number): Promise<void> {
    const next = await this.deps.store.nextDueAt([], now);
    const wait = next === null ? RESCAN_MS : Math.max(0, next - this.deps.clock.now());
    this.armRetry(Math.min(wait, RESCAN_MS));
    // In a fleet too. What a scan there may have missed is found without one: rows another
    // worker's claim held locked a moment, on this worker's endpoints, by the heartbeat's look at
    // them (fleet.ts); endpoints that change hands, through the refills of adoptable ones.
    this.cursor.caughtUp(next, announcedBeforeScan);
  }

  /** Wakes the pump after `ms`. */
  private armRetry(ms: number): void {
    this.cursor.unquiet();
    this.setTimer(ms);
  }

  private setTimer(ms: number): void {
    if (!this.running) return;
    if (this.timer) this.deps.clock.clearTimer(this.timer);
    this.timerAt = this.deps.clock.now() + ms;
    this.timer = this.deps.clock.setTimer(() => {
      this.timer = null;
      this.timerAt = Number.POSITIVE_INFINITY;
      this.schedulePump();
    }, ms);
  }

  /**
   * Puts claimed deliveries (already counted as held) in their endpoints' queues and dispatches
   * them. Never throws: a delivery whose endpoint fails to load is kept for the recovery timer.
   */
  private async admit(batch: readonly ClaimedDelivery[]): Promise<void> {
    // Claimed under an identity this worker has lost since (a claim that was running when it
    // found itself declared dead): another worker's now, never to be queued or sent here.
    const held = batch.filter((d) => this.holds(d));
    this.holdings.claimed -= batch.length - held.length;
    this.fleet?.noteClaimed(held.map((d) => d.endpointId));
    const touched = new Set<EndpointRuntime>();
    let dropped = 0;
    let kept = 0;
    let error: unknown;
    for (const d of held) this.holdings.countArriving(d.endpointId, 1);
    for (const d of held) {
      let rt: EndpointRuntime | null;
      try {
        rt = await this.runtimes.load(d.endpointId);
      } catch (err) {
        error = err;
        this.holdings.countArriving(d.endpointId, -1);
        if (!this.holds(d)) dropped++;
        else {
          kept++;
          this.holdings.unadmitted.push(d);
        }
        continue;
      }
      this.holdings.countArriving(d.endpointId, -1);
      // The endpoint was deleted between claim and now, and its deliveries went with it (or, for
      // one written as it was deleted, go now); or the worker was declared dead while this batch
      // waited for endpoints to load.
      if (!rt || !this.holds(d)) {
        dropped++;
        if (!rt && this.holds(d)) this.clearDeleted(d.endpointId);
      } else {
        rt.queue.push(d);
        touched.add(rt);
      }
    }
    this.holdings.claimed -= dropped;
    if (kept > 0) {
      this.log.error(
        { err: error, deliveries: kept },
        "loading the endpoints of claimed deliveries failed; trying again in 1 s",
      );
      this.armRecovery();
    }
    for (const rt of touched) await this.dispatcher.dispatchOrRecover(rt);
  }

  /**
   * Whether this worker still holds a delivery it claimed: always alone; in a fleet, while the
   * claim was made under the identity the worker has now. A worker declared dead drops what it
   * holds and joins again under a new identity, so work begun before that (a claim, an admission
   * awaiting the store, a delivery put back in a queue after a failed write) ends unsent.
   */
  private holds(d: ClaimedDelivery): boolean {
    return this.fleet === null || d.claimedBy === this.fleet.id;
  }

  /**
   * A claimed delivery's endpoint is gone. Its deletion took its deliveries, but on PostgreSQL a
   * message accepted meanwhile can have written one after: left alone, it stays claimed, and is
   * claimed and dropped again on every start, its message never pruned. The store removes what
   * is left, once at a time; a failure leaves it for the next claim of it.
   */
  private clearDeleted(endpointId: string): void {
    if (this.clearing.has(endpointId)) return;
    this.clearing.add(endpointId);
    this.deps.store
      .clearDeletedEndpoint(endpointId)
      .catch((err: unknown) =>
        this.log.error(
          { err, endpointId },
          "clearing what is left of a deleted endpoint failed; tried again when it is next claimed",
        ),
      )
      .finally(() => this.clearing.delete(endpointId));
  }

  private armRecovery(): void {
    if (this.recoveryTimer || !this.running) return;
    this.recoveryTimer = this.deps.clock.setTimer(() => {
      this.recoveryTimer = null;
      void this.recover();
    }, RECOVERY_MS);
  }

  /** After a store failure: endpoints whose dispatch failed, then deliveries not yet admitted. */
  private async recover(): Promise<void> {
    if (!this.running) return;
    await this.dispatcher.retryFailed();
    if (this.holdings.unadmitted.length) await this.admit(this.holdings.unadmitted.splice(0));
  }
}
