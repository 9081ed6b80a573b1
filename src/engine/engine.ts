/**
 * The delivery engine: claims due deliveries in batches, holds each in its endpoint's queue until
 * the endpoint has a free slot and a closed (or probing) circuit, sends it, and records the
 * outcome through the group-commit writer. One engine runs per process.
 */
import type { Clock, Random, TimerHandle } from "../clock.js";
import { newId } from "../ids.js";
import type { Heartbeat } from "../store/coordination.js";
import {
  SCAN_START,
  scanPassed,
  type ClaimedDelivery,
  type DeliveryOutcome,
  type Intake,
  type Release,
  type ScanPosition,
  type ScanResult,
  type Store,
} from "../store/port.js";
import type { AdaptiveSettings } from "./adaptive-limit.js";
import type { BreakerSettings, CircuitTransition } from "./breaker.js";
import type { DeliveryBudget, EndpointLiveStatus, EngineControl } from "./control.js";
import { makeAttempt } from "./attempt.js";
import { endedBeforeSending } from "./decide.js";
import { EngineEvents } from "./events.js";
import { Fleet, type FleetHost, type FleetSettings } from "./fleet.js";
import { DEFAULT_LOOP_BUDGET, LoopBudget, type LoopBudgetSettings } from "./loop-budget.js";
import { OutcomeWriter } from "./outcome-writer.js";
import type { PolicyDefaults } from "./policy.js";
import type { EndpointRuntime } from "./runtime.js";
import { EndpointRuntimes } from "./runtimes.js";
import type { Sender } from "./sender.js";
import { finishedWithin } from "../finished-within.js";

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
  /** How long stop() lets in-flight requests finish. */
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

/** An endpoint handed to another worker is not taken back for this long (no ping-pong). */
const HANDOVER_QUIET_MS = 5_000;

/** After a store failure while admitting or dispatching, the engine tries again this much later. */
const RECOVERY_MS = 1000;

/** Runs deliveries; see the module comment. */
export class DeliveryEngine implements EngineControl, Intake {
  readonly events: EngineEvents;
  private readonly runtimes: EndpointRuntimes;
  private readonly writer: OutcomeWriter;
  private readonly inFlight = new Set<Promise<void>>();
  private claimed = 0;
  private running = false;
  /** Set once stop() stopped waiting: answers still to come are not recorded (see stop). */
  private gaveUpInFlight = false;
  private pumping = false;
  private pumpAgain = false;
  private pumpScheduled = false;
  private timer: TimerHandle | null = null;
  /** When `timer` fires (the clock's time); infinite while none is armed. */
  private timerAt = Number.POSITIVE_INFINITY;
  /**
   * Every pending delivery due before this time has been claimed, except those of endpoints that
   * were full when the scan passed them; those wait in `backlogged` and are refilled through their
   * own index. So a claim never walks again over rows it already stepped past, however large the
   * backlog of a full endpoint: the cost of claiming follows the batch, not the backlog. (Where
   * the store walks in windows, stepping past such a backlog the first time is one window and a
   * look by endpoint: see `byEndpoint`.)
   */
  private dueCursor: ScanPosition = SCAN_START;
  /**
   * The earliest due time announced (a wake-up, a retry) since the current scan's claim began.
   * On PostgreSQL the claim is a round trip: work committed meanwhile, due before the point the
   * scan then reaches, was invisible to it, and raising the cursor past it would lose it until
   * the next full scan.
   */
  private announcedDuringClaim = Number.POSITIVE_INFINITY;
  /**
   * Until this time a scan can find nothing: the last one claimed everything due outside full
   * endpoints, nothing has been announced since, and nothing else falls due before it. While a
   * full endpoint drains, every freed slot wakes the pump for its refill; without this, each of
   * those wake-ups also paid for a scan that came back empty (a write transaction on SQLite).
   * Any announcement, timer change or rescan clears it. Never set in a fleet (see armTimer).
   */
  private quietUntil = Number.NEGATIVE_INFINITY;
  /** Counts announcements, so a scan can tell whether one arrived while it ran. */
  private announcements = 0;
  /** When the scan last started from the first due row (the safety net below RESCAN_MS). */
  private lastFullScanAt = Number.NEGATIVE_INFINITY;
  private readonly backlogged = new Set<EndpointRuntime>();
  private readonly budget: LoopBudget;
  private readonly log: EngineLogger;
  /** Present when the store is shared with other worker processes. */
  readonly fleet: Fleet | null = null;
  /**
   * Endpoints with work due that no scan claimed, to claim through their own index: another
   * worker let go of them, or the look by endpoint found them.
   */
  private readonly adoptable = new Set<string>();
  /**
   * Set while the scan goes on endpoint by endpoint (`store.dueEndpoints`, after the id in
   * `after`): a window of the walk in due order ran out stepping over full endpoints' rows, so
   * the rest of what was due at `now` is found by endpoint, whose cost does not grow with the
   * length of a full endpoint's backlog. What it finds is claimed as adoptable.
   */
  private byEndpoint: { now: number; after: string } | null = null;
  /** Endpoints this worker handed over, not taken back for a while (id → until). */
  private readonly handedOver = new Map<string, number>();
  /**
   * Runtimes marked to let go of: a few at a time, where the fleet looks every 25 ms while a
   * hand-over is pending; walking every runtime that often would cost a worker with thousands.
   */
  private readonly marked = new Set<EndpointRuntime>();
  /** Claims started so far, and the numbers of those still running. */
  private claimsStarted = 0;
  private readonly claimsRunning = new Set<number>();
  /**
   * Runtimes whose dispatch failed on a store error, dispatched again by the recovery timer.
   * Their waiting deliveries stay in their queues, and counted: nothing else would send them
   * or give them back, as nothing takes back a live process's claims.
   */
  private readonly redispatch = new Set<EndpointRuntime>();
  /**
   * Claimed deliveries whose endpoint could not be loaded (a store error): held and counted,
   * and admitted again by the recovery timer.
   */
  private unadmitted: ClaimedDelivery[] = [];
  /**
   * Per endpoint, claimed deliveries an `admit` has in hand and not yet queued (it awaits other
   * endpoints' loading meanwhile). Like `unadmitted` ones, they keep their endpoint from being
   * handed back: once queued they would be sent, by a worker that no longer owns it.
   */
  private readonly admitting = new Map<string, number>();
  private recoveryTimer: TimerHandle | null = null;
  /** Endpoints with deliveries waiting for the pace, and the one timer that dispatches them. */
  private readonly paced = new Set<EndpointRuntime>();
  private paceTimer: TimerHandle | null = null;

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
      () => this.claimed,
      () => this.deps.clock.now(),
      // Sender threads run below this thread while callers are answered, and level with it after.
      (calling) => deps.sender.yieldToCallers?.(calling),
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
        let retryAt = Number.POSITIVE_INFINITY;
        for (const o of kept) if (o.next.kind === "retry") retryAt = Math.min(retryAt, o.next.at);
        if (retryAt !== Number.POSITIVE_INFINITY) this.wake(retryAt);
        this.events.announce(kept, changes);
      },
      onError: (err) => this.log.error({ err }, "recording attempt outcomes failed; retrying"),
      onRefused: (o, err) =>
        this.log.error(
          { err, deliveryId: o.deliveryId, endpointId: o.endpointId },
          "the store refused an attempt's outcome; its delivery stays claimed and is made " +
            "again when claims are next recovered",
        ),
    });
    const coordination = deps.store.coordination;
    if (coordination && deps.settings.fleet) {
      this.fleet = new Fleet(coordination, deps.clock, deps.settings.fleet, this.fleetHost(), () =>
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
    this.gaveUpInFlight = false;
    this.writer.resume();
    this.wake();
  }

  /** Stops claiming, lets in-flight requests finish (bounded), returns waiting ones to the queue. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.budget.rest();
    if (this.timer) this.deps.clock.clearTimer(this.timer);
    if (this.recoveryTimer) this.deps.clock.clearTimer(this.recoveryTimer);
    if (this.paceTimer) this.deps.clock.clearTimer(this.paceTimer);
    this.paceTimer = null;
    this.paced.clear();
    const releases = [];
    for (const rt of this.runtimes.values()) {
      for (const d of rt.queue.splice(0)) releases.push(releaseOf(d, d.dueAt));
    }
    for (const d of this.unadmitted.splice(0)) releases.push(releaseOf(d, d.dueAt));
    this.claimed -= releases.length;
    await this.deps.store.releaseDeliveries(releases);
    await finishedWithin(
      this.deps.settings.shutdownTimeoutMs,
      Promise.allSettled([...this.inFlight]),
    );
    // Whatever is still out stays claimed in the store: retried after restart (alone), or by the
    // others once this worker's heartbeat is old enough (in a fleet, which otherwise gets this
    // worker's endpoints back at once). The sender is closed next, which ends those requests with
    // an error of its own making: no attempt of theirs is recorded, as none has an answer.
    this.gaveUpInFlight = true;
    // The outcomes of the requests that finished are written, unless the store is away for as
    // long again: their deliveries then stay claimed, and are sent again after restart.
    const unwritten = await this.writer.flushWithin(
      Math.max(this.deps.settings.shutdownTimeoutMs, 1_000),
    );
    if (unwritten > 0) {
      this.log.error(
        { unwritten },
        "stopping without recording attempt outcomes: the store is unavailable; their deliveries are sent again after restart",
      );
    }
    await this.fleet?.stop(this.inFlight.size === 0 && unwritten === 0);
  }

  wake(dueAt?: number): void {
    if (dueAt !== undefined && this.dueLater(dueAt)) return;
    this.lowerCursor(dueAt ?? Number.MIN_SAFE_INTEGER);
    this.schedulePump();
  }

  /**
   * Work announced while quiet that falls due only later (a message with a later deliverAt): a
   * scan now could find nothing, and on SQLite each would be a write transaction, about a third
   * of the main thread's work per such message at 1,000 a second. The quiet is cut short at its
   * due time instead, and the timer brought forward to it. Only while no claim runs (its end
   * decides the quiet and the timer afresh) and never in a fleet, where a short scan proves less.
   */
  private dueLater(at: number): boolean {
    const now = this.deps.clock.now();
    if (this.fleet || this.pumping || this.timer === null) return false;
    if (!(now < at && now < this.quietUntil)) return false;
    // Everything due by now has been looked at, and the cursor never passes now: it stays.
    this.quietUntil = Math.min(this.quietUntil, at);
    if (at < this.timerAt) this.setTimer(at - now);
    return true;
  }

  private lowerCursor(at: number): void {
    this.announcements++;
    this.quietUntil = Number.NEGATIVE_INFINITY;
    // Rows due at `at` are all looked at again: one announced may sort before the position's row.
    if (at <= this.dueCursor.due) this.dueCursor = { due: at, row: SCAN_START.row };
    if (at < this.announcedDuringClaim) this.announcedDuringClaim = at;
  }

  private schedulePump(): void {
    if (!this.running || this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      void this.pump();
    });
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
    return { held: this.claimed, limit: this.holdLimit(), pace: this.budget.pace };
  }

  // ---- taking deliveries as they are accepted -------------------------------------------------

  /**
   * Alone with its store, the engine takes a new message's deliveries as they are written when
   * it would send them at once anyway: written claimed, handed over after the commit, no claim
   * (port.ts, `Intake`). In a fleet the worker that owns an endpoint claims for it.
   */
  intake(): Intake | null {
    return this.fleet ? null : this;
  }

  /**
   * Room only when taking changes nothing about what is sent when: nothing is due that a scan
   * has not claimed (the last scan came back short and nothing was announced since), the endpoint
   * is known, settled and not backlogged, nothing waits in its queue, its circuit is closed, and
   * it and the budget have a free slot for this one too, and no claim is under way (the store may
   * write a new message in the claim's own commit, before the claim's rows are counted here).
   * Otherwise the delivery is written due and claimed in its turn.
   */
  room(endpointId: string, forEndpoint: number, all: number): number {
    if (!this.running || !(this.deps.clock.now() < this.quietUntil)) return 0;
    if (this.claimsRunning.size > 0) return 0;
    const rt = this.runtimes.get(endpointId);
    if (!rt || rt.stale || rt.leaving || rt.endpoint.disabled || rt.queue.length > 0) return 0;
    if (this.backlogged.has(rt) || rt.breaker.snapshot().state !== "closed") return 0;
    const slots = rt.limit.effective - rt.inFlight - forEndpoint;
    return Math.max(0, Math.min(slots, this.free() - all));
  }

  leaseUntil(): number {
    return this.deps.clock.now() + this.deps.settings.leaseMs;
  }

  handOver(deliveries: ClaimedDelivery[]): void {
    // Taken and handed over in one synchronous stretch, so the engine cannot have stopped or
    // forgotten the endpoint in between; should it have, the deliveries go back to pending.
    const back: ClaimedDelivery[] = [];
    const touched = new Set<EndpointRuntime>();
    for (const d of deliveries) {
      const rt = this.running ? this.runtimes.get(d.endpointId) : undefined;
      if (!rt) back.push(d);
      else {
        rt.queue.push(d);
        touched.add(rt);
      }
    }
    this.took(deliveries.length - back.length);
    // Sent once the callers whose commit this was have been answered: signing and handing the
    // requests to the sender thread is delivery's work, not theirs to wait for.
    if (touched.size) {
      setImmediate(() => {
        for (const rt of touched) void this.dispatchOrRecover(rt);
      });
    }
    if (back.length) {
      const releases = back.map((d) => releaseOf(d, d.dueAt));
      this.deps.store.releaseDeliveries(releases).then(
        () => this.wake(),
        (err) => this.log.error({ err }, "returning taken deliveries failed; the next start will"),
      );
    }
  }

  // ---- claiming -----------------------------------------------------------------------------

  private async pump(): Promise<void> {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        if (!this.running) break;
        // Full: a finishing attempt frees a slot and wakes the pump again.
        if (this.free() <= 0) break;
        // Deliveries in hand already wait for the pace: claiming more now would only add a
        // commit per freed slot (a claim of one, each). Once none waits, claims resume in batches
        // (the pace's timer wakes the pump, should nothing else).
        if (this.waitingForPace()) break;
        const now = this.deps.clock.now();
        // Kept by the clock, not by a timer that every wake-up would push back under load.
        if (now - this.lastFullScanAt >= RESCAN_MS) {
          this.lastFullScanAt = now;
          this.dueCursor = SCAN_START;
          this.byEndpoint = null;
          this.quietUntil = Number.NEGATIVE_INFINITY;
          if (!this.fleet) this.evictIdle(now);
        }
        const leaseUntil = now + this.deps.settings.leaseMs;
        await this.refillBacklogged(now, leaseUntil);
        const free = this.free();
        if (free <= 0) break;
        // The armed timer wakes the pump when the next delivery falls due.
        if (now < this.quietUntil && this.timer !== null) break;
        const announced = this.announcements;
        const exclude = this.fullEndpoints();
        if (this.byEndpoint) {
          await this.lookByEndpoint(this.byEndpoint, exclude);
          continue;
        }
        const limit = Math.min(free, this.deps.settings.batchSize);
        this.announcedDuringClaim = Number.POSITIVE_INFINITY;
        const scan = await this.numbered(() =>
          this.deps.store.scanDue({
            now,
            limit,
            excludeEndpoints: exclude,
            leaseUntil,
            from: this.dueCursor,
            worker: this.fleet?.claimingWorker(now),
          }),
        );
        const batch = scan.claimed;
        this.took(batch.length);
        await this.admit(batch);
        this.advanceCursor(scan, now);
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
    }
  }

  /**
   * Moves the cursor to where the scan stopped (`now` if it looked at everything due), but not
   * past anything announced while it ran.
   */
  private advanceCursor(scan: ScanResult, now: number): void {
    const reached = scan.reached ?? { due: now, row: SCAN_START.row };
    if (scanPassed(reached, this.dueCursor)) this.dueCursor = reached;
    if (this.announcedDuringClaim <= this.dueCursor.due) {
      this.dueCursor = { due: this.announcedDuringClaim, row: SCAN_START.row };
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
    for (const id of found.endpoints) this.adoptable.add(id);
    if (found.reached !== null) look.after = found.reached;
    else {
      this.byEndpoint = null;
      this.advanceCursor({ claimed: [], reached: null }, look.now);
    }
    this.schedulePump();
  }

  private free(): number {
    return this.holdLimit() - this.claimed;
  }

  /** Counts deliveries newly in this process's hands; the budget is judged while it holds any. */
  private took(count: number): void {
    this.claimed += count;
    if (this.claimed > 0) this.budget.watch();
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
      if (rt.busy || now - rt.lastActiveAt < IDLE_EVICT_MS || this.backlogged.has(rt)) continue;
      this.runtimes.delete(id);
    }
  }

  /** Full endpoints are skipped by the scan and remembered, to be refilled once they have room. */
  private fullEndpoints(): string[] {
    const out: string[] = [];
    const now = this.deps.clock.now();
    for (const [id, until] of this.handedOver) {
      if (until > now) out.push(id);
      else {
        // Nobody may have taken it meanwhile (the taker handed it on, or died): look again.
        this.handedOver.delete(id);
        this.adoptable.add(id);
      }
    }
    for (const [id, rt] of this.runtimes) {
      if (rt.leaving) {
        out.push(id);
        continue;
      }
      if (!rt.isFull()) continue;
      out.push(id);
      this.backlogged.add(rt);
    }
    return out;
  }

  /** Claims for endpoints the scan skipped while they were full, through their own index. */
  private async refillBacklogged(now: number, leaseUntil: number): Promise<void> {
    for (const rt of this.backlogged) {
      const room = Math.min(this.free(), this.deps.settings.batchSize);
      if (room <= 0) return;
      if (rt.leaving) this.backlogged.delete(rt);
      if (rt.isFull() || rt.leaving) continue;
      if ((await this.claimEndpoint(rt.endpoint.id, room, now, leaseUntil)) < room) {
        this.backlogged.delete(rt);
      }
    }
    for (const id of this.adoptable) {
      const room = Math.min(this.free(), this.deps.settings.batchSize);
      if (room <= 0) return;
      const rt = this.runtimes.get(id);
      // A full endpoint is refilled as backlogged (put there now: the cursor may already have
      // moved past its rows); one being let go, or handed over a moment ago, is not taken back
      // now (the handed-over one is looked at again when its quiet ends).
      if (rt && !rt.leaving && rt.isFull()) this.backlogged.add(rt);
      if (rt?.leaving || rt?.isFull() || this.handedOver.has(id)) {
        this.adoptable.delete(id);
        continue;
      }
      if ((await this.claimEndpoint(id, room, now, leaseUntil)) < room) this.adoptable.delete(id);
    }
  }

  /** A numbered claim: an endpoint is not handed back while a claim older than its mark runs. */
  private async numbered<T>(claim: () => Promise<T>): Promise<T> {
    const n = ++this.claimsStarted;
    this.claimsRunning.add(n);
    try {
      return await claim();
    } finally {
      this.claimsRunning.delete(n);
    }
  }

  /** Marks an endpoint to let go of; claims from now on pass it over. */
  private markLeaving(rt: EndpointRuntime, why: "idle" | "handover"): void {
    rt.leaving = why;
    rt.leavingAfterClaim = this.claimsStarted;
    this.marked.add(rt);
  }

  /** Claims up to `room` of one endpoint's due deliveries through its own index; how many. */
  private async claimEndpoint(
    endpointId: string,
    room: number,
    now: number,
    leaseUntil: number,
  ): Promise<number> {
    const own = await this.numbered(() =>
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
    // In a fleet a short scan proves less: rows another worker's claim had locked were skipped,
    // and endpoints change hands without a wake-up here. There every wake-up scans, as before.
    if (!this.fleet && this.announcements === announcedBeforeScan) {
      this.quietUntil = next ?? Number.POSITIVE_INFINITY;
    }
  }

  /** Wakes the pump after `ms`. */
  private armRetry(ms: number): void {
    this.quietUntil = Number.NEGATIVE_INFINITY;
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
    this.claimed -= batch.length - held.length;
    this.fleet?.noteClaimed(held.map((d) => d.endpointId));
    const touched = new Set<EndpointRuntime>();
    let dropped = 0;
    let kept = 0;
    let error: unknown;
    for (const d of held) this.countArriving(d.endpointId, 1);
    for (const d of held) {
      let rt: EndpointRuntime | null;
      try {
        rt = await this.runtimes.load(d.endpointId);
      } catch (err) {
        error = err;
        this.countArriving(d.endpointId, -1);
        if (!this.holds(d)) dropped++;
        else {
          kept++;
          this.unadmitted.push(d);
        }
        continue;
      }
      this.countArriving(d.endpointId, -1);
      // The endpoint was deleted between claim and now, and its deliveries went with it; or the
      // worker was declared dead while this batch waited for endpoints to load.
      if (!rt || !this.holds(d)) dropped++;
      else {
        rt.queue.push(d);
        touched.add(rt);
      }
    }
    this.claimed -= dropped;
    if (kept > 0) {
      this.log.error(
        { err: error, deliveries: kept },
        "loading the endpoints of claimed deliveries failed; trying again in 1 s",
      );
      this.armRecovery();
    }
    for (const rt of touched) await this.dispatchOrRecover(rt);
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

  private countArriving(endpointId: string, by: 1 | -1): void {
    const n = (this.admitting.get(endpointId) ?? 0) + by;
    if (n > 0) this.admitting.set(endpointId, n);
    else this.admitting.delete(endpointId);
  }

  // ---- the fleet (a store shared with other workers) ------------------------------------------

  private fleetHost(): FleetHost {
    return {
      log: this.log,
      readyToRelease: () => {
        const ready = { idle: [] as string[], handover: [] as string[] };
        // A claim that started before an endpoint was marked may still bring some of its
        // deliveries: letting it go now could give the endpoint two senders. Only claims that
        // old hold it back; a busy worker's claims follow one another without a gap, so waiting
        // for none to run would keep it from ever handing anything over.
        let oldest = Number.POSITIVE_INFINITY;
        for (const n of this.claimsRunning) oldest = Math.min(oldest, n);
        // Claimed deliveries on their way to a queue hold their endpoint as queued ones do.
        const arriving = new Set([
          ...this.admitting.keys(),
          ...this.unadmitted.map((d) => d.endpointId),
        ]);
        for (const rt of this.marked) {
          const id = rt.endpoint.id;
          // Forgotten meanwhile (its endpoint deleted, or all dropped on rejoining).
          if (this.runtimes.get(id) !== rt) this.marked.delete(rt);
          else if (!rt.leaving || rt.inFlight > 0 || rt.queue.length > 0 || arriving.has(id)) {
            continue;
          } else if (oldest > rt.leavingAfterClaim) ready[rt.leaving].push(id);
        }
        return ready;
      },
      handingOver: () => {
        for (const rt of this.marked) if (rt.leaving === "handover") return true;
        return false;
      },
      planReleases: (now, fleet) => this.planReleases(now, fleet),
      handedOver: () => {
        const now = this.deps.clock.now();
        return [...this.handedOver].filter(([, until]) => until > now).map(([id]) => id);
      },
      released: (ids) => {
        const quietUntil = this.deps.clock.now() + HANDOVER_QUIET_MS;
        for (const id of ids) {
          const rt = this.runtimes.get(id);
          if (!rt) continue;
          this.marked.delete(rt);
          if (rt.leaving === "handover") this.handedOver.set(id, quietUntil);
          this.backlogged.delete(rt);
          this.runtimes.delete(id);
        }
      },
      adopt: (ids) => this.adopt(ids),
      forgetAll: () => {
        // Every endpoint is forgotten, those with requests out too: the new identity starts
        // from what the store says (circuits included). Requests already out cannot be called
        // back; they finish on the forgotten runtimes and change nothing (see `attempt`).
        for (const rt of this.runtimes.values()) this.claimed -= rt.queue.splice(0).length;
        this.runtimes.clear();
        this.marked.clear();
        this.handedOver.clear();
        this.claimed -= this.unadmitted.splice(0).length;
        this.backlogged.clear();
        this.adoptable.clear();
      },
      onSignals: (signals) => {
        for (const s of signals) {
          if (s.kind === "wake") this.wake(s.dueAt);
          else if (s.kind === "endpoint") this.invalidateEndpoint(s.id);
          else if (s.kind === "app") this.invalidateApplication(s.id);
          else this.adopt(s.endpointIds);
        }
      },
      rescan: () => this.wake(),
      poll: (since) => this.wake(since),
    };
  }

  private adopt(endpointIds: readonly string[]): void {
    for (const id of endpointIds) this.adoptable.add(id);
    this.schedulePump();
  }

  /**
   * Marks endpoints to let go of at the next heartbeat: those idle for a while, and, when this
   * worker owns more than its share of the fleet's endpoints, the excess (least busy first), so a
   * worker that joins gets work without waiting for endpoints to fall idle.
   */
  private planReleases(now: number, fleet: Heartbeat): void {
    const idleMs = this.deps.settings.fleet?.idleReleaseMs ?? 10_000;
    const kept: EndpointRuntime[] = [];
    for (const rt of this.runtimes.values()) {
      if (rt.leaving) continue;
      if (rt.inFlight === 0 && rt.queue.length === 0 && now - rt.lastActiveAt >= idleMs) {
        this.markLeaving(rt, "idle");
      } else kept.push(rt);
    }
    if (fleet.liveWorkers <= 1) return;
    const excess = kept.length - Math.ceil(fleet.ownedTotal / fleet.liveWorkers);
    if (excess <= 0) return;
    kept.sort((a, b) => a.inFlight + a.queue.length - (b.inFlight + b.queue.length));
    for (const rt of kept.slice(0, excess)) this.markLeaving(rt, "handover");
    this.schedulePump();
  }

  // ---- sending ------------------------------------------------------------------------------

  /**
   * Dispatches with nobody to hand a failure to (after an attempt, after a claim): a store error
   * is logged, and the endpoint dispatched again after RECOVERY_MS with its queue as it was.
   * Never rejects: Node 20 ends the process on an unhandled rejection.
   */
  private async dispatchOrRecover(rt: EndpointRuntime): Promise<void> {
    try {
      await this.dispatch(rt);
    } catch (err) {
      this.log.error(
        { err, endpointId: rt.endpoint.id, waiting: rt.queue.length },
        "dispatching an endpoint's deliveries failed; trying again in 1 s",
      );
      this.redispatch.add(rt);
      this.armRecovery();
    }
  }

  private armRecovery(): void {
    if (this.recoveryTimer || !this.running) return;
    this.recoveryTimer = this.deps.clock.setTimer(() => {
      this.recoveryTimer = null;
      void this.recover();
    }, RECOVERY_MS);
  }

  private async recover(): Promise<void> {
    if (!this.running) return;
    const runtimes = [...this.redispatch];
    this.redispatch.clear();
    // Each failure is caught again, and re-arms the timer.
    for (const rt of runtimes) await this.dispatchOrRecover(rt);
    if (this.unadmitted.length) await this.admit(this.unadmitted.splice(0));
  }

  /**
   * Starts as many queued deliveries as the endpoint's limit and circuit allow. Throws on a
   * store error, leaving every delivery it had not started in the queue.
   */
  private async dispatch(rt: EndpointRuntime): Promise<void> {
    if (rt.stale && !(await this.runtimes.load(rt.endpoint.id))) {
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
    while (rt.queue.length && this.running) {
      if (rt.inFlight >= rt.limit.effective) return;
      const wait = this.budget.take();
      if (wait > 0) return this.waitForPace(rt, wait);
      const admission = rt.breaker.admit(rt.inFlight);
      if (!admission.allowed) {
        if (rt.breaker.snapshot().state === "open") await this.holdForProbe(rt);
        return;
      }
      const d = rt.queue.shift()!;
      if (!this.holds(d)) {
        // Another worker's now (see `holds`): the last point before the request goes out.
        if (admission.probe) rt.breaker.cancelProbe();
        this.claimed--;
        continue;
      }
      const expired = endedBeforeSending(d, rt.policy);
      if (expired) {
        // Not sent, so not the probe either: another delivery may be.
        if (admission.probe) rt.breaker.cancelProbe();
        this.endUnsent(rt, d, expired);
        this.claimed--;
        this.schedulePump();
        continue;
      }
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
      const waiting = [...this.paced];
      this.paced.clear();
      for (const r of waiting) void this.dispatchOrRecover(r);
      this.schedulePump();
    }, ms);
  }

  /** Whether deliveries in hand wait for the pace (an endpoint may have sent them meanwhile). */
  private waitingForPace(): boolean {
    for (const rt of this.paced) if (rt.queue.length > 0) return true;
    return false;
  }

  /**
   * The endpoint was deleted, and its deliveries with it: those waiting here are dropped, not
   * sent to its old URL with its old secret. What is in flight finishes; its outcome finds no row.
   */
  private forgetDeleted(rt: EndpointRuntime): void {
    this.claimed -= rt.queue.splice(0).length;
    this.backlogged.delete(rt);
    if (rt.inFlight === 0 && this.runtimes.get(rt.endpoint.id) === rt) {
      this.runtimes.delete(rt.endpoint.id);
    }
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
        this.claimed--;
      }
    }
    rt.queue.splice(0, rt.queue.length, ...kept);
    const releases = await this.putBack(rt, (d) => Math.max(d.dueAt, until));
    for (const r of releases) this.lowerCursor(r.at);
    // Only ever sooner: the armed timer may be for another endpoint's delivery, due before the
    // probe (the dispatcher may have armed it while this write was under way).
    if (this.timer === null || until < this.timerAt) {
      this.armRetry(Math.max(0, until - this.deps.clock.now()));
    }
  }

  /**
   * Returns an endpoint's waiting deliveries to pending, each due at `at(d)`. They leave the queue
   * while the store writes, so that no other dispatch starts or returns them meanwhile; should
   * the write fail, they are back at its head, still counted as held, and the error is thrown.
   */
  private async putBack(
    rt: EndpointRuntime,
    at: (d: ClaimedDelivery) => number,
  ): Promise<Release[]> {
    const waiting = rt.queue.splice(0);
    const releases = waiting.map((d) => releaseOf(d, at(d)));
    try {
      await this.deps.store.releaseDeliveries(releases);
    } catch (err) {
      rt.queue.unshift(...waiting);
      throw err;
    }
    this.claimed -= waiting.length;
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
    this.writer.push({
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
    });
  }

  private async attempt(rt: EndpointRuntime, d: ClaimedDelivery, probe: boolean): Promise<void> {
    const endpoint = rt.endpoint;
    const { outcome, decision, transition } = await makeAttempt(this.deps, rt, d, probe);
    if (this.gaveUpInFlight) return;
    // Sent before this worker was declared dead: the store would keep no outcome of it (the
    // delivery is the worker's holding it now), so none is written nor announced, and the
    // endpoint's circuit and settings are its owner's to change.
    if (!this.holds(d)) return this.release(rt, true);
    this.writer.push(outcome);
    // Every request in flight when the receiver turned to 410 comes back with it: announce once.
    if (decision.disable && !endpoint.disabled) {
      endpoint.disabled = true;
      endpoint.disabledReason = decision.disable;
      this.events.emit({
        type: "endpoint.disabled",
        endpointId: endpoint.id,
        reason: decision.disable,
        trigger: "automatic",
      });
    }
    if (transition) await this.onTransition(rt, transition);
    this.release(rt, true);
  }

  private release(rt: EndpointRuntime, wasInFlight: boolean): void {
    if (wasInFlight) rt.inFlight--;
    this.claimed--;
    void this.dispatchOrRecover(rt);
    this.schedulePump();
  }

  private async onTransition(rt: EndpointRuntime, t: CircuitTransition): Promise<void> {
    const snapshot = rt.breaker.snapshot();
    try {
      await this.deps.store.saveCircuit(rt.endpoint.id, snapshot, t);
      if (t.to === "open" && snapshot.nextProbeAt !== null) {
        await this.deps.store.pauseEndpoint(rt.endpoint.id, snapshot.nextProbeAt);
      }
    } catch (err) {
      this.log.error({ err, endpointId: rt.endpoint.id }, "saving circuit state failed");
    }
    this.events.emit({ type: "circuit", endpointId: rt.endpoint.id, transition: t });
  }
}

/** A held delivery put back to pending, due at `at` (only while its claimer still holds it). */
function releaseOf(d: ClaimedDelivery, at: number): Release {
  return { deliveryId: d.id, at, claimedBy: d.claimedBy };
}
