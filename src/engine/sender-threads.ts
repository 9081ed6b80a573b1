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
import { failure, lost, type Sender, type SendRequest, type SendResult } from "./sender.js";
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

  constructor(private readonly options: ThreadedSenderOptions) {
    this.settings = {
      maxResponseBytes: options.maxResponseBytes ?? 4096,
      refusePrivateTargets: options.refusePrivateTargets ?? false,
      niceness: this.equalNiceness,
    };
    const exempt = options.exemptTargets;
    this.threads = Array.from(
      { length: Math.max(1, options.threads) },
      () =>
        new SenderThread(
          // A thread started again starts at the priority the others have now.
          () => this.settings,
          exempt?.list() ?? [],
          () => this.closing,
          (niceness, applied) => this.priorityTaken(niceness, applied),
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
    let best = this.threads[0]!;
    for (const t of this.threads) if (t.inFlight < best.inFlight) best = t;
    return best.send(this.nextId++, req);
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.threads.map((t) => t.close()));
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

/** One worker thread and the requests it holds; restarted if it ever dies. */
class SenderThread {
  private worker!: Worker;
  private readonly waiting = new Map<number, (r: SendResult) => void>();
  private outbox: WireRequests = [];
  private flushQueued = false;
  private exited: Promise<void> = Promise.resolve();

  constructor(
    private readonly settings: () => ThreadSettings,
    private exemptPairs: string[],
    private readonly closing: () => boolean,
    private readonly priorityTaken: (niceness: number, applied: boolean) => void,
  ) {
    this.start();
  }

  get inFlight(): number {
    return this.waiting.size;
  }

  send(id: number, req: SendRequest): Promise<SendResult> {
    return new Promise((resolve) => {
      if (this.waiting.size === 0) this.worker.ref();
      this.waiting.set(id, resolve);
      packRequest(this.outbox, id, req);
      if (this.flushQueued) return;
      this.flushQueued = true;
      // Requests made in the same turn of the loop (a claimed batch) cross in one message.
      setImmediate(() => this.flush());
    });
  }

  post(msg: ThreadRequest): void {
    if (msg.type === "exempt") this.exemptPairs = msg.pairs;
    this.flush();
    this.worker.postMessage(msg);
  }

  async close(): Promise<void> {
    this.flush();
    this.worker.postMessage({ type: "close" } satisfies ThreadRequest);
    // A thread that does not finish closing its sockets in time is stopped.
    const timer = setTimeout(() => void this.worker.terminate(), 5_000);
    await this.exited;
    clearTimeout(timer);
  }

  private flush(): void {
    this.flushQueued = false;
    if (this.outbox.length === 0) return;
    const requests = this.outbox;
    this.outbox = [];
    this.worker.postMessage({ type: "send", requests } satisfies ThreadRequest);
  }

  private start(): void {
    const entry = workerEntry(import.meta.url, "sender-thread");
    const worker = new Worker(entry.file, {
      workerData: this.settings(),
      eval: entry.eval,
      name: "hookline-sender",
    });
    this.worker = worker;
    worker.unref();
    worker.on("message", (msg: ThreadReply) => {
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
        for (const r of this.waiting.values()) r(lost(detail));
        this.waiting.clear();
        this.outbox = [];
        // The new thread is given the current exemptions as it starts.
        if (!this.closing()) this.start();
        resolve();
      });
    });
    if (this.exemptPairs.length) worker.postMessage({ type: "exempt", pairs: this.exemptPairs });
  }
}
