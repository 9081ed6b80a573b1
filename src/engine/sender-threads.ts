/**
 * Sending on other threads. The HTTP side of a delivery (undici, sockets, reading the answer) is
 * about half of hookline's CPU per delivery; one JavaScript thread doing it and the store and the
 * API caps a process at one core. A ThreadedSender hands requests to sender threads in batches and
 * gets results back in batches, so the main thread keeps every rule (limits, breaker, ladder) and
 * the store, and the bytes move elsewhere. It is a Sender like HttpSender: the engine cannot tell.
 */
import { getPriority } from "node:os";
import { Worker } from "node:worker_threads";
import { workerEntry } from "../threads.js";
import type { ExemptTargets } from "./guarded-connect.js";
import {
  failure,
  HttpSender,
  lost,
  type Sender,
  type SendRequest,
  type SendResult,
} from "./sender.js";
import { packRequest, unpackResults, type WireRequests, type WireResults } from "./thread-wire.js";

/** What a sender thread is started with. */
export interface ThreadSettings {
  maxResponseBytes: number;
  refusePrivateTargets: boolean;
  /** The nice value a sender thread starts with (Linux); see `ThreadedSender.yieldToCallers`. */
  niceness: number;
}

/** Main thread → sender thread. */
export type ThreadRequest =
  | { type: "send"; requests: WireRequests }
  | { type: "exempt"; pairs: string[] }
  | { type: "priority"; niceness: number }
  | { type: "close" };

/** Sender thread → main thread: answers, or whether a nice value asked for was taken. */
export type ThreadReply =
  | { type: "ready" }
  | { type: "results"; results: WireResults }
  | { type: "priority"; niceness: number; applied: boolean };

export interface ThreadedSenderOptions {
  threads: number;
  maxResponseBytes?: number;
  refusePrivateTargets?: boolean;
  exemptTargets?: ExemptTargets;
  /** How many nice steps the threads step down while API callers are answered (default 5). */
  yieldBy?: number;
  /**
   * A thread could not take the nice value asked for: given back the main thread's priority
   * once callers went, it keeps the lower one (Linux lets a thread raise its own priority only
   * with CAP_SYS_NICE or a nice limit, RLIMIT_NICE, that allows it). Called once.
   */
  onPriorityRefused?: (niceness: number) => void;
  /** Where a thread stopped and when it starts again, and sending on the main thread meanwhile. */
  log?: { warn(obj: object, msg: string): void };
  /** Where a thread's code is (default: sender-thread.ts beside this file); for tests. */
  entry?: { file: URL | string; eval: boolean };
}

/** A thread that ran this long before it stopped had started well: the next starts at once. */
const STARTED_WELL_MS = 10_000;
/** The longest start-up waits for sender threads to load (see `started`). */
const LOAD_WAIT_MS = 10_000;

/**
 * How long to wait before starting a thread again, after `failedInARow` threads in a row stopped
 * soon after they started: at once after a thread that had run well, then from 250 ms doubling up
 * to 30 s, so that a thread that cannot start (a broken install, no memory) is not started again
 * and again as fast as the machine can, nor its loss logged as fast.
 */
export function restartDelayMs(failedInARow: number): number {
  if (failedInARow <= 0) return 0;
  return Math.min(30_000, 250 * 2 ** (failedInARow - 1));
}

/**
 * 5: under contention the main thread gets about three quarters of a shared core. Measured with
 * fan-out 10 beyond capacity: accept p50 864 ms with no lowering, 42–78 ms at 5 or 10; 5 costs
 * delivery less than 10 did. With no caller to make way for, the lowering only slows delivery
 * (drains from a backlog about 10 % slower at 5 on session 25's host), so it lasts only as long
 * as the callers do.
 */
const YIELD_BY = 5;

/** Sends through `threads` worker threads, each with its own keep-alive pools. */
export class ThreadedSender implements Sender {
  private readonly threads: SenderThread[];
  private nextId = 1;
  private closing = false;
  private settings: ThreadSettings;
  /** The main thread's nice value: the threads' own while no caller is answered. */
  private readonly equalNiceness = mainThreadNiceness();
  private yielding = false;
  /** Whether a thread has ever taken the lower priority, and whether a refusal was told. */
  private steppedDown = false;
  private refusalTold = false;
  /** Sends while no thread is up; made the first time that happens. */
  private fallback: HttpSender | null = null;
  private fallingBack = false;

  constructor(private readonly options: ThreadedSenderOptions) {
    this.settings = {
      maxResponseBytes: options.maxResponseBytes ?? 4096,
      refusePrivateTargets: options.refusePrivateTargets ?? false,
      niceness: this.equalNiceness,
    };
    const exempt = options.exemptTargets;
    const entry = options.entry ?? workerEntry(import.meta.url, "sender-thread");
    this.threads = Array.from(
      { length: Math.max(1, options.threads) },
      () =>
        new SenderThread(
          entry,
          // A thread started again starts at the priority the others have now.
          () => this.settings,
          exempt?.list() ?? [],
          () => this.closing,
          (niceness, applied) => this.priorityTaken(niceness, applied),
          options.log,
        ),
    );
    exempt?.onChange((pairs) => {
      for (const t of this.threads) t.post({ type: "exempt", pairs });
    });
  }

  send(req: SendRequest): Promise<SendResult> {
    if (this.closing) return Promise.resolve(failure("network", "the sender is closed"));
    // The least busy thread; an endpoint's connections may then live in several threads, which
    // costs a few idle sockets and nothing else (its limit is counted on the main thread).
    let best: SenderThread | null = null;
    for (const t of this.threads) if (t.up && (!best || t.inFlight < best.inFlight)) best = t;
    if (best) {
      this.fallingBack = false;
      return best.send(this.nextId++, req);
    }
    return this.sendHere(req);
  }

  /**
   * Resolves once every thread has loaded and can send (or has stopped trying). Requests handed
   * to a thread still loading wait in its inbox and all go out together when it is up: the
   * engine must not start before, or an endpoint's rate limit, paced on this thread, would reach
   * the receiver as one burst (a restart with a backlog sent a second's worth at once).
   */
  started(): Promise<void> {
    const loaded = Promise.all(this.threads.map((t) => t.loaded)).then(() => undefined);
    // A thread that neither loads nor stops must not hold start-up for ever: after this long
    // the engine starts anyway, and what waits in that thread's inbox goes when it is up.
    let timer: NodeJS.Timeout | undefined;
    const capped = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, LOAD_WAIT_MS);
      timer.unref();
    });
    return Promise.race([loaded, capped]).finally(() => clearTimeout(timer));
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.threads.map((t) => t.close()), this.fallback?.close()]);
  }

  /**
   * Every thread is waiting to be started again: the main thread sends, as it does with no
   * sender threads at all, rather than hold deliveries for as long as no thread can start.
   */
  private sendHere(req: SendRequest): Promise<SendResult> {
    if (!this.fallingBack) {
      this.fallingBack = true;
      this.options.log?.warn({}, "no sender thread is up: sending on the main thread meanwhile");
    }
    this.fallback ??= new HttpSender({
      maxResponseBytes: this.settings.maxResponseBytes,
      refusePrivateTargets: this.settings.refusePrivateTargets,
      exemptTargets: this.options.exemptTargets,
    });
    return this.fallback.send(req);
  }

  /**
   * While API callers are answered, the threads run below the main thread, so that the callers'
   * requests never queue behind delivery for a core (architecture.md, step 7); once the callers
   * have gone, the threads take the main thread's priority again, and delivery the whole of
   * whatever core it runs on.
   */
  yieldToCallers(yielding: boolean): void {
    if (yielding === this.yielding) return;
    this.yielding = yielding;
    const niceness = yielding
      ? Math.min(19, this.equalNiceness + (this.options.yieldBy ?? YIELD_BY))
      : this.equalNiceness;
    this.settings = { ...this.settings, niceness };
    for (const t of this.threads) t.post({ type: "priority", niceness });
  }

  /**
   * What a thread made of a nice value asked for. Only a thread that did step down and then could
   * not come back is worth telling of: where no step is allowed at all (not Linux), nothing
   * changed, and delivery runs as it always did.
   */
  private priorityTaken(niceness: number, applied: boolean): void {
    if (applied) {
      if (niceness !== this.equalNiceness) this.steppedDown = true;
      return;
    }
    if (niceness !== this.equalNiceness || !this.steppedDown || this.refusalTold) return;
    this.refusalTold = true;
    this.options.onPriorityRefused?.(niceness);
  }
}

/** The calling thread's nice value (0 where it cannot be read). */
function mainThreadNiceness(): number {
  try {
    return getPriority();
  } catch {
    return 0;
  }
}

/** One worker thread and the requests it holds; started again, after a pause, if it dies. */
class SenderThread {
  /** Null between a thread's end and the start of the next. */
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, (r: SendResult) => void>();
  private outbox: WireRequests = [];
  private flushQueued = false;
  private exited: Promise<void> = Promise.resolve();
  private startedAt = 0;
  /** Threads in a row that stopped before they had run STARTED_WELL_MS. */
  private failedInARow = 0;
  private restartTimer: NodeJS.Timeout | null = null;
  /** Resolves when the current thread says it is ready, or stops before it could. */
  loaded: Promise<void> = Promise.resolve();

  constructor(
    private readonly entry: { file: URL | string; eval: boolean },
    private readonly settings: () => ThreadSettings,
    private exemptPairs: string[],
    private readonly closing: () => boolean,
    private readonly priorityTaken: (niceness: number, applied: boolean) => void,
    private readonly log: ThreadedSenderOptions["log"],
  ) {
    this.start();
  }

  /** Whether a thread is there to take requests (it may still be starting: they wait for it). */
  get up(): boolean {
    return this.worker !== null;
  }

  get inFlight(): number {
    return this.waiting.size;
  }

  /** Only while `up`. */
  send(id: number, req: SendRequest): Promise<SendResult> {
    const worker = this.worker!;
    return new Promise((resolve) => {
      if (this.waiting.size === 0) worker.ref();
      this.waiting.set(id, resolve);
      packRequest(this.outbox, id, req);
      if (this.flushQueued) return;
      this.flushQueued = true;
      // Requests made in the same turn of the loop (a claimed batch) cross in one message.
      setImmediate(() => this.flush());
    });
  }

  /** A thread not up is told nothing: the next one starts with the exemptions and priority of now. */
  post(msg: ThreadRequest): void {
    if (msg.type === "exempt") this.exemptPairs = msg.pairs;
    if (!this.worker) return;
    this.flush();
    this.worker.postMessage(msg);
  }

  async close(): Promise<void> {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    const worker = this.worker;
    if (!worker) return;
    this.flush();
    worker.postMessage({ type: "close" } satisfies ThreadRequest);
    // A thread that does not finish closing its sockets in time is stopped.
    const timer = setTimeout(() => void worker.terminate(), 5_000);
    await this.exited;
    clearTimeout(timer);
  }

  private flush(): void {
    this.flushQueued = false;
    if (this.outbox.length === 0 || !this.worker) return;
    const requests = this.outbox;
    this.outbox = [];
    this.worker.postMessage({ type: "send", requests } satisfies ThreadRequest);
  }

  private start(): void {
    const worker = new Worker(this.entry.file, {
      workerData: this.settings(),
      eval: this.entry.eval,
      name: "hookline-sender",
    });
    this.worker = worker;
    this.startedAt = performance.now();
    worker.unref();
    let loaded!: () => void;
    this.loaded = new Promise((resolve) => (loaded = resolve));
    worker.once("exit", () => loaded());
    worker.on("message", (msg: ThreadReply) => {
      if (msg.type === "ready") {
        loaded();
        return;
      }
      if (msg.type === "priority") {
        this.priorityTaken(msg.niceness, msg.applied);
        return;
      }
      unpackResults(msg.results, (id, result) => {
        const resolve = this.waiting.get(id);
        this.waiting.delete(id);
        resolve?.(result);
      });
      if (this.waiting.size === 0) worker.unref();
    });
    let crash: unknown = null;
    // The exit handler settles everything; the error is reported with what it failed.
    worker.on("error", (err) => (crash = err));
    this.exited = new Promise((resolve) => {
      worker.once("exit", (code) => {
        // Whatever it held is lost on hookline's side, not failed by the receiver: the engine
        // sends it again (spending no attempt, counting no failure); nothing hangs.
        const why = crash ? `: ${String(crash).slice(0, 300)}` : ` (exit code ${code})`;
        const detail = `sender thread stopped before the answer arrived${why}`;
        const held = this.waiting.size;
        for (const r of this.waiting.values()) r(lost(detail));
        this.waiting.clear();
        this.outbox = [];
        this.worker = null;
        if (!this.closing()) this.startLater(held, why);
        resolve();
      });
    });
    if (this.exemptPairs.length) worker.postMessage({ type: "exempt", pairs: this.exemptPairs });
  }

  private startLater(held: number, why: string): void {
    const ran = performance.now() - this.startedAt;
    this.failedInARow = ran >= STARTED_WELL_MS ? 0 : this.failedInARow + 1;
    const restartInMs = restartDelayMs(this.failedInARow);
    this.log?.warn(
      {
        detail: why.replace(/^: /, "").trim(),
        lostRequests: held,
        ranMs: Math.round(ran),
        restartInMs,
      },
      "a sender thread stopped; the requests it held go back to be sent again, and it is started again",
    );
    // The new thread is given the current exemptions as it starts.
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (this.closing()) return;
      try {
        this.start();
      } catch (err) {
        // A thread refused outright (no memory, too many threads) is a start that failed too.
        this.startedAt = performance.now();
        this.startLater(0, `: ${String(err).slice(0, 300)}`);
      }
    }, restartInMs);
    // Nothing is due to be sent while it waits; it must not keep the process up.
    this.restartTimer.unref();
  }
}
