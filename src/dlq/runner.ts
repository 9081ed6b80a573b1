/**
 * Runs bulk replay jobs in the background. Each job takes its selection once, then queues one
 * replay per token of its rate (a token bucket on the injected clock), waits for the canary
 * sample's results before going on, and stops when cancelled (or when the receiver fails again
 * after the canary passed, see job-step.ts). Replays are ordinary deliveries, so the engine's
 * per-endpoint limit and circuit breaker apply to them. All of a job's state is in the store:
 * after a restart the job carries on, and no record is replayed twice by one job.
 *
 * A job is leased to one runner at a time, by name. A runner that stalls for longer than the
 * lease (a frozen VM) may find on waking that another runner has taken its job up: the store then
 * refuses its updates, and it drops the job rather than run it beside the other at twice its rate.
 */
import type { Clock, TimerHandle } from "../clock.js";
import type { ReplayJob } from "../domain/types.js";
import type { EngineControl } from "../engine/control.js";
import type { EngineEvents } from "../engine/events.js";
import { newId } from "../ids.js";
import type { Store } from "../store/port.js";
import { circuitNow } from "./circuit-now.js";
import {
  nextJobStep,
  rateWait,
  replayWindow,
  slotWait,
  withSkips,
  type HeldByCircuit,
  type JobCircuits,
} from "./job-step.js";
import { TokenBucket } from "../token-bucket.js";

/** Where the runner reports jobs starting, ending and failing (pino fits). */
export interface RunnerLogger {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** What the runner needs, passed in by the entry point. */
export interface ReplayRunnerDeps {
  store: Store;
  engine: EngineControl;
  events: EngineEvents;
  clock: Clock;
  settings: {
    /** Failed replays in a row after which a record is abandoned; 0: never. */
    maxReplays: number;
    /** How long a claimed job is this runner's (renewed as it runs). */
    leaseMs?: number;
    /** Jobs run at once. */
    maxJobs?: number;
    /** Real-time safety net for waits: look at the store again at least this often. */
    pollMs?: number;
    /**
     * Whether jobs left running are this process's to take up at start (one process alone);
     * processes sharing a store wait for a dead runner's job lease to run out instead.
     */
    takeOverOnStart?: boolean;
    /**
     * With a store several processes share: look for jobs to take at least this often. Another
     * process (an API-only one) may have created a job, or a runner elsewhere stopped and its
     * job's lease ran out; neither wakes this runner. Unset: only when woken, or at a scheduled
     * job's start.
     */
    sharedPollMs?: number;
  };
  logger?: RunnerLogger;
}

/** Wakes a job's loop when something it may be waiting for has happened. */
class Signal {
  version = 0;
  private waiters = new Set<() => void>();

  bump(): void {
    this.version++;
    for (const w of this.waiters) w();
    this.waiters.clear();
  }

  /** Resolves once bumped after `seen`, or when `timer` resolves. */
  wait(seen: number, timer: (done: () => void) => () => void): Promise<void> {
    if (this.version !== seen) return Promise.resolve();
    return new Promise((resolve) => {
      let cancel = () => {};
      const done = () => {
        cancel();
        this.waiters.delete(done);
        resolve();
      };
      this.waiters.add(done);
      cancel = timer(done);
    });
  }
}

interface JobRun {
  signal: Signal;
  stopped: boolean;
  done: Promise<void>;
}

/** See the module comment. */
export class ReplayJobRunner {
  /** This runner's name on the jobs it holds. */
  readonly id = newId("rnr");
  private running = false;
  private readonly runs = new Map<string, JobRun>();
  private timer: TimerHandle | null = null;
  private ticking = false;
  /** The look under way, if any: stop waits for it (it may take jobs as stop begins). */
  private looking: Promise<void> = Promise.resolve();
  private tickAgain = false;
  private offEvents: (() => void) | null = null;
  private readonly leaseMs: number;
  private readonly maxJobs: number;
  private readonly pollMs: number;
  /** Why a due job waits while this runner is full. */
  private readonly slotWait: string;

  constructor(private readonly deps: ReplayRunnerDeps) {
    this.leaseMs = deps.settings.leaseMs ?? 60_000;
    this.maxJobs = deps.settings.maxJobs ?? 4;
    this.pollMs = deps.settings.pollMs ?? 1_000;
    this.slotWait = slotWait(this.maxJobs, deps.settings.sharedPollMs !== undefined);
  }

  /** Takes up jobs left running by a previous process, then runs jobs as they come due. */
  async start(): Promise<void> {
    if (this.deps.settings.takeOverOnStart ?? true) await this.deps.store.releaseReplayJobs();
    this.running = true;
    this.offEvents = this.deps.events.on((e) => {
      if (e.type !== "dead-letter") return;
      const k = e.change.kind;
      if (k === "replay_succeeded" || k === "replay_failed" || k === "replay_withdrawn") {
        for (const run of this.runs.values()) run.signal.bump();
      }
    });
    this.wake();
  }

  /** Stops every job loop (the jobs stay running in the store, to be taken up again). */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.offEvents?.();
    if (this.timer) this.deps.clock.clearTimer(this.timer);
    // A claim under way takes its jobs all the same: the look hands them back while the store
    // is still open, rather than leave them held by a stopped runner until their lease runs out.
    await this.looking;
    for (const run of this.runs.values()) {
      run.stopped = true;
      run.signal.bump();
    }
    await Promise.allSettled([...this.runs.values()].map((r) => r.done));
  }

  /** A job was created or cancelled: look now rather than at the next timer. */
  wake(): void {
    if (!this.running) return;
    for (const run of this.runs.values()) run.signal.bump();
    this.tick();
  }

  private tick(): void {
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    this.ticking = true;
    this.looking = this.look();
  }

  private async look(): Promise<void> {
    try {
      do {
        this.tickAgain = false;
        const free = this.maxJobs - this.runs.size;
        if (free > 0) {
          const now = this.deps.clock.now();
          const jobs = await this.deps.store.claimReplayJobs({
            now,
            leaseUntil: now + this.leaseMs,
            limit: free,
            runner: this.id,
          });
          if (!this.running) {
            await Promise.all(jobs.map((job) => this.handBack(job.id)));
            return;
          }
          for (const job of jobs) if (!this.runs.has(job.id)) this.launch(job);
        }
        if (!this.running) return;
        await this.armTimer();
      } while (this.tickAgain && this.running);
    } catch (err) {
      this.deps.logger?.error({ err }, "taking up replay jobs failed; trying again in 1 s");
      this.arm(1000);
    } finally {
      this.ticking = false;
    }
  }

  private async armTimer(): Promise<void> {
    // At the job limit a due job waits for a free slot, and a job ending wakes the runner: its
    // start time (likely past) is no reason to look again, which would be at once, over and over.
    // It is told why it waits (once: the store writes only jobs not told yet), and the runner
    // looks again when the next job falls due, to tell that one as it begins to wait.
    const full = this.runs.size >= this.maxJobs;
    const now = this.deps.clock.now();
    const next = full
      ? await this.deps.store.noteReplayJobsWaiting({ now, reason: this.slotWait })
      : await this.deps.store.nextReplayJobAt();
    const poll = this.deps.settings.sharedPollMs ?? null;
    const untilNext = next === null ? null : Math.max(0, next - this.deps.clock.now());
    const wait = untilNext === null ? poll : poll === null ? untilNext : Math.min(untilNext, poll);
    if (wait === null) {
      if (this.timer) this.deps.clock.clearTimer(this.timer);
      this.timer = null;
      return;
    }
    this.arm(wait);
  }

  private arm(ms: number): void {
    if (!this.running) return;
    if (this.timer) this.deps.clock.clearTimer(this.timer);
    this.timer = this.deps.clock.setTimer(() => {
      this.timer = null;
      this.wake();
    }, ms);
  }

  private launch(job: ReplayJob): void {
    const run: JobRun = { signal: new Signal(), stopped: false, done: Promise.resolve() };
    this.runs.set(job.id, run);
    run.done = this.runJob(job, run)
      .catch((err: unknown) => this.deps.logger?.error({ err, jobId: job.id }, "replay job failed"))
      .finally(() => {
        this.runs.delete(job.id);
        this.wake();
      });
  }

  private async runJob(claimed: ReplayJob, run: JobRun): Promise<void> {
    const { store, clock, logger } = this.deps;
    const prepared = await this.prepare(claimed.id, run);
    if (!prepared) return run.stopped || !this.running ? this.handBack(claimed.id) : undefined;
    // Cancelled between its claim and now: nothing to run, and nothing to say it runs.
    if (prepared.state !== "running") return;
    logger?.info(
      { jobId: prepared.id, selected: prepared.progress.total, stage: prepared.stage },
      "replay job running",
    );
    const bucket = new TokenBucket(prepared.ratePerSecond, () => clock.now());
    const window = replayWindow(prepared.ratePerSecond);
    let shownReason = prepared.reason;
    // The canary's verdict once given: it stands until the rest's first replay goes.
    let verdict: string | undefined;
    // What last held a slow job back on its own: its rate (a result came in before the next
    // token was due) or its results (the token came first). While a replay is out and the token
    // is not due either, both hold it, and the reason stays the one that did last: a receiver
    // slower than the rate otherwise read "waiting for its rate" as each replay went and "waiting
    // for results" once its token was due, two lines a replay for a CLI following the job.
    let heldBy: "rate" | "results" | null = null;
    while (this.running && !run.stopped) {
      const seen = run.signal.version;
      try {
        const now = clock.now();
        const update = { id: prepared.id, runner: this.id, now, leaseUntil: now + this.leaseMs };
        // Every write renews the lease; each is refused once the job is no longer this
        // runner's (cancelled, finished, or taken up elsewhere), and the runner lets go of it.
        const job = await store.updateReplayJob(update);
        if (!job) return await this.letGo(prepared.id);
        /** Writes `reason` when it is not the one shown already; false once the job is not ours. */
        const show = async (reason: string): Promise<boolean> => {
          if (reason === shownReason) return true;
          if (!(await store.updateReplayJob({ ...update, reason }))) return false;
          shownReason = reason;
          return true;
        };
        let step = nextJobStep(job, window);
        if (step.kind === "wait")
          step = nextJobStep(job, window, await this.circuitsOf(job.id, now));
        switch (step.kind) {
          case "enqueue": {
            const wait = bucket.take();
            if (wait > 0) {
              heldBy = "rate";
              // A slow job reaches its verdict between two tokens: replaced here, it would show
              // for a moment only, unseen by the CLI or the dashboard following the job.
              const reason = shownReason === verdict ? null : rateWait(job);
              if (reason !== null && !(await show(reason))) return await this.letGo(job.id);
              // A slow job's next token may be further off than its lease: wake in time to renew
              // it (at the top of the loop), or another runner takes the job up and this one
              // must drop it. The bucket keeps count; waking early takes no token.
              const renewIn = Math.max(1, Math.floor(this.leaseMs / 3));
              await run.signal.wait(seen, (done) => this.clockTimer(done, Math.min(wait, renewIn)));
              break;
            }
            const queued = await store.enqueueJobReplays({
              jobId: job.id,
              runner: this.id,
              limit: 1,
              now,
              abandonAfter: this.deps.settings.maxReplays || null,
              newDeliveryId: () => newId("dlv", now),
            });
            if (queued.queued.length) this.deps.engine.wake(now);
            break;
          }
          case "wait": {
            // A full window with the next token due: results alone hold the job. With the token
            // not due either, both do: it is said to wait for what held it back alone last time.
            const tokenDue = step.window && bucket.wait() === 0;
            if (tokenDue) heldBy = "results";
            const byRate = step.window && !tokenDue && heldBy !== "results";
            const reason = (byRate ? rateWait(job) : null) ?? step.reason;
            if (!(await show(reason))) return await this.letGo(job.id);
            await run.signal.wait(seen, (done) => this.realTimer(done, this.pollMs));
            break;
          }
          case "advance":
            if (!(await store.updateReplayJob({ ...update, stage: "rest", reason: step.reason }))) {
              return await this.letGo(job.id);
            }
            shownReason = verdict = step.reason;
            logger?.info({ jobId: job.id, reason: step.reason }, "replay job canary passed");
            break;
          case "finish": {
            const skips = job.progress.skipped > 0 ? await store.replayJobSkips(job.id) : [];
            const finish = { state: step.state, reason: withSkips(step.reason, skips) };
            const ended = await store.finishReplayJob({ ...update, ...finish });
            if (!ended) return await this.letGo(job.id);
            // The replays it took back, as cancelling announces them: counted withdrawn.
            for (const change of ended.withdrawn)
              this.deps.events.emit({ type: "dead-letter", change });
            logger?.info({ jobId: job.id, ...finish }, "replay job ended");
            return;
          }
        }
      } catch (err) {
        logger?.error({ err, jobId: claimed.id }, "replay job step failed; trying again in 1 s");
        await run.signal.wait(seen, (done) => this.realTimer(done, 1000));
      }
    }
    await this.handBack(prepared.id);
  }

  /**
   * The open circuits holding the job's replays out. Alone, this process's engine knows an
   * endpoint's circuit as it is. In a fleet the circuit is its owner's, which writes every change
   * to the store, and this engine may hold an old reading of one it no longer owns (declared dead,
   * before it notices): the store's is the one to trust.
   */
  private async circuitsOf(jobId: string, now: number): Promise<JobCircuits> {
    const held: HeldByCircuit[] = [];
    for (const { endpointId, replays } of await this.deps.store.replayJobEndpointsOut(jobId)) {
      const circuit = await circuitNow(this.deps, endpointId);
      if (circuit?.state !== "open") continue;
      held.push({ endpointId, replays, openedAt: circuit.since, nextProbeAt: circuit.nextProbeAt });
    }
    return { now, held };
  }

  /**
   * Stopped mid-job: hands it back, so another runner (or this process, restarted) takes it up at
   * its next look rather than once the lease runs out. If this fails, the lease still does.
   */
  private async handBack(jobId: string): Promise<void> {
    const now = this.deps.clock.now();
    await this.deps.store
      .updateReplayJob({ id: jobId, runner: this.id, now, leaseUntil: now })
      .catch(() => undefined);
  }

  /**
   * Takes the job's selection, trying again after a failure: the job is this runner's (its lease
   * says so), and on a store of its own nothing else would look at it again before a restart.
   */
  private async prepare(jobId: string, run: JobRun): Promise<ReplayJob | null> {
    const { store, clock, logger } = this.deps;
    while (this.running && !run.stopped) {
      const seen = run.signal.version;
      try {
        return await store.prepareReplayJob(jobId, clock.now());
      } catch (err) {
        logger?.error({ err, jobId }, "starting a replay job failed; trying again in 1 s");
        await run.signal.wait(seen, (done) => this.realTimer(done, 1000));
      }
    }
    return null;
  }

  /**
   * The store refused an update: the job was cancelled or ended, or, if it is still running,
   * another runner took it up while this one stalled for longer than the lease. Either way this
   * runner stops working on it.
   */
  private async letGo(jobId: string): Promise<void> {
    const job = await this.deps.store.getReplayJob(jobId);
    if (job?.state !== "running") return;
    this.deps.logger?.info(
      { jobId, runner: this.id },
      "replay job taken up by another runner while this one stalled; dropping it",
    );
  }

  private clockTimer(done: () => void, ms: number): () => void {
    const handle = this.deps.clock.setTimer(done, ms);
    return () => this.deps.clock.clearTimer(handle);
  }

  private realTimer(done: () => void, ms: number): () => void {
    const t = setTimeout(done, ms);
    t.unref?.();
    return () => clearTimeout(t);
  }
}
