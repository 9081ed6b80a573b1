/**
 * This worker's membership of a fleet of workers sharing one database: it registers, says it is
 * alive once per heartbeat, reaps workers that stopped doing so, hands endpoints back when it has
 * no work for them or more than its share, and listens for other processes' signals.
 *
 * Why endpoints have owners: an endpoint's concurrency limit, circuit breaker and adaptive limit
 * are decisions over every request in flight to it. Letting one worker at a time send to an
 * endpoint keeps each of them a local decision, exact and cheap, instead of a shared counter
 * written on every request. Ownership moves only when the owner lets go (idle, or over its share)
 * or is declared dead, so the limit holds across processes.
 */
import type { Clock, TimerHandle } from "../clock.js";
import type {
  ClaimingWorker,
  Heartbeat,
  Signal,
  WorkerCoordination,
} from "../store/coordination.js";

export interface FleetSettings {
  /** How often a worker says it is alive (and hands endpoints back). */
  heartbeatMs: number;
  /** A worker silent for this long is dead: others take its endpoints and claimed deliveries. */
  deadAfterMs: number;
  /** An endpoint with nothing to do for this long goes back to the pool. */
  idleReleaseMs: number;
  role: string;
  host: string;
}

/** What the fleet needs from the engine it serves. */
export interface FleetHost {
  /** Endpoints owned and ready to hand back: marked at an earlier heartbeat, nothing in hand. */
  readyToRelease(): { idle: string[]; handover: string[] };
  /** Marks endpoints to let go of at the next heartbeat (none is claimed for meanwhile). */
  planReleases(now: number, fleet: Heartbeat): void;
  /** Whether endpoints are marked to be handed to other workers (and sit idle until they are). */
  handingOver(): boolean;
  /** Endpoints this worker handed to others in the last few seconds; some may not be taken yet. */
  handedOver(): string[];
  /** These endpoints are no longer ours. */
  released(freed: readonly string[]): void;
  /** Endpoints another worker gave up or died holding: claim their due work if we can. */
  adopt(endpointIds: readonly string[]): void;
  /**
   * This worker declared others dead: their endpoints are adopted, and so is every endpoint it
   * handed over lately, claimed by one of them or not (the quiet that keeps it from taking those
   * back waits for a live taker).
   */
  takeOver(endpointIds: readonly string[]): void;
  /**
   * Other workers declared this one dead: drop everything in hand (it is theirs now). Work under
   * way under the old identity (claims, admissions) must end without sending anything.
   */
  forgetAll(): void;
  onSignals(signals: readonly Signal[]): void;
  /** Signals may have been missed: reload every endpoint's settings and scan everything again. */
  rescan(): void;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

/** Heartbeats between two sweeps for endpoints with due work and no owner. */
const ORPHAN_SWEEP_BEATS = 5;

/**
 * While endpoints are marked for hand-over, how often the worker looks whether they are ready.
 * A marked endpoint starts no request, so it sits idle from the moment its last answer arrives
 * (milliseconds) until the heartbeat that frees it: looking this often, rather than waiting a
 * whole heartbeat, keeps that gap short. A look that finds nothing ready writes nothing.
 */
const HANDOVER_CHECK_MS = 25;

/** One worker's side of the fleet; see the module comment. */
export class Fleet {
  private idValue: string;
  private liveWorkers = 1;
  private ownedTotal = 0;
  /** Endpoints this worker owns, as far as it knows (every claim adds its endpoints). */
  readonly owned = new Set<string>();
  private timer: TimerHandle | null = null;
  private unsubscribe: (() => Promise<void>) | null = null;
  private beating: Promise<void> | null = null;
  private running = false;
  /** When the next regular heartbeat is due (early ones for hand-overs do not move it). */
  private nextBeatAt = 0;
  /** The last beat failed, at its heartbeat or a later step: no early ones until a regular one. */
  private lastBeatFailed = false;
  /** When this worker's last heartbeat got through. */
  private lastOkAt = 0;
  /**
   * Set while this worker cannot tell the dead from the live: from its first failed heartbeat
   * until dead-after has passed since its first one to get through again. The others' heartbeats
   * most likely failed too (a database outage), so none is declared dead for silence that may
   * be the outage's: no reaping (and claims take no endpoint of a worker not reaped), and the
   * heartbeat counts as live every worker heard within dead-after before this worker's last good
   * heartbeat (`deadBefore`). Every live worker thus gets a full dead-after window to beat again.
   */
  private distrust: { deadBefore: number; recoveredAt: number | null } | null = null;
  private beats = 0;
  /** Whether this silence (see `silenced`) was logged. */
  private silenceLogged = false;
  /** Answers waiting for the next heartbeat that gets through (see `heard`). */
  private hearing: (() => void)[] = [];

  constructor(
    private readonly coordination: WorkerCoordination,
    private readonly clock: Clock,
    private readonly settings: FleetSettings,
    private readonly host: FleetHost,
    /** A new worker id: one at start, another on rejoining after being declared dead. */
    private readonly newWorkerId: () => string,
  ) {
    this.idValue = newWorkerId();
  }

  get id(): string {
    return this.idValue;
  }

  /** Registers, reaps the dead (taking nothing yet), and starts listening and beating. */
  async start(): Promise<void> {
    const now = this.clock.now();
    await this.coordination.register({ ...this.identity(), now });
    await this.reap(now);
    this.unsubscribe = await this.coordination.subscribe(
      () => this.idValue,
      (signals) => this.host.onSignals(signals),
      () => this.host.rescan(),
    );
    this.running = true;
    this.lastOkAt = now;
    this.nextBeatAt = now + this.settings.heartbeatMs;
    this.schedule();
  }

  /**
   * Stops beating and listening. With `handBack` (nothing is in hand) the worker leaves and its
   * endpoints go to the others at once; without, they wait until its heartbeat is old enough.
   */
  async stop(handBack: boolean): Promise<void> {
    this.running = false;
    this.hear();
    if (this.timer) this.clock.clearTimer(this.timer);
    await this.beating;
    await this.unsubscribe?.();
    if (!handBack) return;
    const freed = await this.coordination.unregister(this.idValue);
    this.owned.clear();
    if (freed.length) await this.publish([{ kind: "released", endpointIds: freed }]);
  }

  /** The claim identity for a claim made now. */
  claimingWorker(now: number): ClaimingWorker {
    return {
      id: this.idValue,
      deadBefore: this.deadBefore(now),
      // Another worker won these endpoints as this claim held some of their rows: tell it (and
      // everyone) to look for them through the endpoints' own index.
      onContended: (endpointIds) => void this.publish([{ kind: "released", endpointIds }]),
    };
  }

  /** Makes the endpoint ours now, unless another worker not declared dead owns it; whether it is. */
  async take(endpointId: string): Promise<boolean> {
    const now = this.clock.now();
    const deadBefore = this.deadBefore(now);
    const taken = await this.coordination.take({ id: this.idValue, endpointId, now, deadBefore });
    if (taken) this.owned.add(endpointId);
    return taken;
  }

  /** Records the endpoints of claimed deliveries as ours. */
  noteClaimed(endpointIds: Iterable<string>): void {
    for (const id of endpointIds) this.owned.add(id);
  }

  /** The fleet as of the last heartbeat. */
  get view(): { liveWorkers: number; ownedTotal: number } {
    return { liveWorkers: this.liveWorkers, ownedTotal: this.ownedTotal };
  }

  /** Sends signals to the other processes; a failure is logged, never thrown. */
  async publish(signals: readonly Signal[]): Promise<void> {
    try {
      await this.coordination.publish(this.idValue, signals);
    } catch (err) {
      this.host.log.warn({ err }, "signalling other hookline processes failed");
    }
  }

  /**
   * Whether the others may soon declare this worker dead: its last heartbeat to get through is
   * half the dead-after time old (the database away from this worker alone looks the same to it
   * as one away from all). It then starts no request: a worker that cannot be heard would
   * otherwise go on sending what it holds while the deliveries' new owner sends them too, two
   * senders to one endpoint for as long as it stays cut off. Half, not all of it: the requests
   * it started last are still in flight when it falls silent, and the other half is their time
   * to end before anyone may take over. Silenced at the dead-after time itself, its last
   * requests overlapped the new owner's first, past the endpoint's limit.
   */
  silenced(now: number): boolean {
    return now - this.lastOkAt >= this.settings.deadAfterMs / 2;
  }

  /**
   * Resolves once this worker is not silenced (at once if it is not): at its first heartbeat to
   * get through that was sent after the silence (one sent before, answered late, is still as
   * old), by which time it has dropped its work if it was declared dead meanwhile; or when it
   * stops.
   */
  heard(): Promise<void> {
    if (!this.running || !this.silenced(this.clock.now())) return Promise.resolve();
    return new Promise((resolve) => this.hearing.push(resolve));
  }

  private hear(): void {
    if (this.running && this.silenced(this.clock.now())) return;
    for (const resolve of this.hearing.splice(0)) resolve();
  }

  /**
   * Workers whose heartbeat is older than this count as gone in the fleet's share, and ownership
   * rows older than this may be taken once their worker is reaped (see `distrust`).
   */
  private deadBefore(now: number): number {
    const plain = now - this.settings.deadAfterMs;
    return this.distrust ? Math.min(plain, this.distrust.deadBefore) : plain;
  }

  private identity() {
    return { id: this.idValue, role: this.settings.role, host: this.settings.host };
  }

  private schedule(): void {
    if (!this.running) return;
    // Kept by nextBeatAt, so an early beat for a hand-over does not push the regular one back.
    const untilBeat = Math.max(0, this.nextBeatAt - this.clock.now());
    const wait = this.host.handingOver() ? Math.min(HANDOVER_CHECK_MS, untilBeat) : untilBeat;
    this.timer = this.clock.setTimer(() => {
      this.timer = null;
      this.beating = this.tick().finally(() => {
        this.beating = null;
        this.schedule();
      });
    }, wait);
  }

  /** Beats when one is due, or early when endpoints marked for hand-over are ready to go. */
  private async tick(): Promise<void> {
    const now = this.clock.now();
    // A beat further off than one interval means the wall clock was set back (NTP, a restored
    // VM): waiting for it would leave this worker unheard for as long as the step, declared dead
    // by the others while it went on sending. It beats now, by the new time.
    if (this.nextBeatAt - now > this.settings.heartbeatMs) this.nextBeatAt = now;
    if (now >= this.nextBeatAt) this.nextBeatAt = now + this.settings.heartbeatMs;
    else if (this.lastBeatFailed || this.host.readyToRelease().handover.length === 0) return;
    await this.beat();
  }

  private async beat(): Promise<void> {
    const now = this.clock.now();
    // The live count and the share it gives follow the same rule as claims.
    const deadBefore = this.deadBefore(now);
    let ready: { idle: string[]; handover: string[] };
    let release: string[];
    let hb: Heartbeat;
    try {
      ready = this.host.readyToRelease();
      release = [...ready.idle, ...ready.handover];
      const inTransit = [...this.host.handedOver(), ...ready.handover];
      hb = await this.coordination.heartbeat({
        id: this.idValue,
        now,
        deadBefore,
        release,
        inTransit,
      });
    } catch (err) {
      this.heartbeatFailed(err);
      return;
    }
    this.lastBeatFailed = false;
    this.lastOkAt = now;
    this.silenceLogged = false;
    if (this.distrust) {
      // Set back to now if the wall clock went back past it: else reaping stayed off that long.
      if (this.distrust.recoveredAt === null || this.distrust.recoveredAt > now)
        this.distrust.recoveredAt = now;
      if (now - this.distrust.recoveredAt >= this.settings.deadAfterMs) this.distrust = null;
    }
    // This worker was heard: what fails from here on is that step alone, no sign the others
    // went unheard, so it neither starts distrust nor counts as a failed heartbeat. Each step
    // runs again at the next beat.
    let step = "joining the fleet again";
    try {
      if (!hb.alive) return await this.rejoin(now);
      this.hear();
      // Ours no longer: the heartbeat freed every endpoint we asked to hand back.
      for (const id of release) this.owned.delete(id);
      this.host.released(release);
      // Handed over, or work arrived while an idle endpoint was being let go: others (and, for
      // the idle ones, this worker too) take it through the endpoint's own index.
      const handover = new Set(ready.handover);
      const withWork = new Set([...ready.handover, ...hb.releasedWithWork]);
      if (withWork.size) await this.publish([{ kind: "released", endpointIds: [...withWork] }]);
      this.host.adopt(hb.releasedWithWork.filter((id) => !handover.has(id)));
      this.liveWorkers = hb.liveWorkers;
      this.ownedTotal = hb.ownedTotal;
      this.host.planReleases(now, hb);
      step = "taking over the work of workers that stopped answering";
      if (!this.distrust) await this.reap(now);
      // Every few beats, endpoints with due work and no owner: should an adoption ever be missed
      // (a signal lost, a hand-over that went nowhere), they are taken within seconds.
      step = "looking for due work no worker owns";
      if (++this.beats % ORPHAN_SWEEP_BEATS === 0) {
        this.host.adopt(await this.coordination.orphans(now, 1_000));
      }
      // Every beat, this worker's own endpoints with due work: should a wake-up ever be lost, or
      // a scan step past rows another worker's claim held locked a moment, they are taken
      // through the endpoint's own index. (This once lowered the scan's cursor to 5 s before the
      // previous beat instead, and while a backlog was due in that range each beat's scan walked
      // all of it, the rows of endpoints other workers own included.)
      step = "looking for due work of this worker's endpoints";
      this.host.adopt(await this.coordination.dueOwned(this.idValue, now));
    } catch (err) {
      // No early beats until the next regular one, which tries again (no log flood).
      this.lastBeatFailed = true;
      this.host.log.error({ err }, `${step} failed after the heartbeat got through; trying again`);
    }
  }

  private heartbeatFailed(err: unknown): void {
    this.lastBeatFailed = true;
    // A failure after recovery began starts the window again, from the same last good beat.
    const deadBefore = this.lastOkAt - this.settings.deadAfterMs;
    this.distrust = {
      deadBefore: Math.min(deadBefore, this.distrust?.deadBefore ?? deadBefore),
      recoveredAt: null,
    };
    this.host.log.error({ err }, "worker heartbeat failed; trying again");
    if (!this.silenceLogged && this.silenced(this.clock.now())) {
      this.silenceLogged = true;
      this.host.log.warn(
        { workerId: this.idValue, deadAfterMs: this.settings.deadAfterMs },
        "this worker has not been heard for half the dead-after time; it starts no request " +
          "until a heartbeat gets through",
      );
    }
  }

  /** Declared dead while alive (a long pause): everything claimed is another's now; start over. */
  private async rejoin(now: number): Promise<void> {
    this.host.log.warn(
      { workerId: this.idValue },
      "this worker was declared dead by the others; dropping its work and joining again",
    );
    this.host.forgetAll();
    this.owned.clear();
    this.idValue = this.newWorkerId();
    this.hear();
    // Until the new identity is registered its claims take nothing (a worker without a row
    // could be reaped as it sends), so the engine looks again once it is.
    await this.coordination.register({ ...this.identity(), now });
    this.host.rescan();
  }

  private async reap(now: number): Promise<void> {
    const reaped = await this.coordination.reap(now, now - this.settings.deadAfterMs);
    if (reaped.workers.length || reaped.deliveries) {
      this.host.log.warn(
        {
          workers: reaped.workers,
          endpoints: reaped.endpointIds.length,
          deliveries: reaped.deliveries,
        },
        "took over the work of workers that stopped answering",
      );
    }
    // Called when a worker died holding nothing too: what it had been handed and not yet
    // claimed is owned by nobody, so the reaping frees none of it.
    if (reaped.workers.length || reaped.endpointIds.length) this.host.takeOver(reaped.endpointIds);
    if (reaped.endpointIds.length) {
      await this.publish([{ kind: "released", endpointIds: reaped.endpointIds }]);
    }
  }
}
