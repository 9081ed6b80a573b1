/**
 * How much CPU processes outside this benchmark used while it ran: on a shared 2-core machine a
 * type-check or test run elsewhere moves every figure, so each scenario reports the cores other
 * processes took. Samples /proc twice a second; a process that starts and ends between two samples
 * is missed, so the figure is a lower bound.
 *
 * The sampling runs on a thread of its own (noise-sampler.ts). The bench's process is also the
 * accept scenario's load generator, which times each request from its scheduled send: on that
 * thread, a pass over /proc during the accept scenario took 1.9 ms at the median and up to 13 ms
 * (session 14), every 500 ms, and the requests it held up counted it as hookline's latency.
 */
import { Worker } from "node:worker_threads";
import { TICKS_PER_SECOND } from "./process-table.js";

/**
 * Int32 slots at the start of the shared buffer: [0] requests for a sample now, [1] samples
 * published, [2] stop, [3] whether the local PostgreSQL server's processes are the bench's own
 * for now. A Float64 after them holds the ticks counted so far.
 */
export const NOISE_SLOTS = 4;

/** The slot that says whether the local PostgreSQL server is the bench's own for now (1) or not. */
export const DATABASE_SLOT = 3;

export interface NoiseShared {
  buffer: SharedArrayBuffer;
  /** The bench's pid: it and its descendants are not noise. */
  root: number;
}

/** Accumulates the CPU time of processes that are not this one or its descendants. */
export class NoiseMeter {
  private readonly control: Int32Array;
  private readonly total: Float64Array;
  private readonly worker: Worker;
  private failed: Error | null = null;

  constructor(root = process.pid) {
    const buffer = new SharedArrayBuffer(NOISE_SLOTS * 4 + 8);
    this.control = new Int32Array(buffer, 0, NOISE_SLOTS);
    this.total = new Float64Array(buffer, NOISE_SLOTS * 4, 1);
    const shared: NoiseShared = { buffer, root };
    // A worker does not inherit tsx's loader on Node 20: it registers it, then loads the sampler.
    const sampler = new URL("./noise-sampler.ts", import.meta.url).href;
    this.worker = new Worker(
      `import("tsx/esm/api").then((t) => { t.register(); return import(${JSON.stringify(sampler)}); })`,
      { eval: true, workerData: shared },
    );
    this.worker.on("error", (err) => (this.failed = err));
    this.worker.unref();
  }

  /** CPU seconds other processes have used since the meter started, sampled now. */
  foreignCpuSeconds(): number {
    if (this.failed) throw new Error(`the noise sampler failed: ${this.failed.message}`);
    const published = Atomics.load(this.control, 1);
    Atomics.add(this.control, 0, 1);
    Atomics.notify(this.control, 0);
    // Called between measurements only; a pass over /proc takes a few ms.
    Atomics.wait(this.control, 1, published, 5_000);
    return this.total[0]! / TICKS_PER_SECOND;
  }

  /**
   * Waits until other processes have used less than `cores` over a 2 s window, for at most
   * `maxMs`; resolves with the load of the last window (so the caller can say it gave up).
   */
  async waitForQuiet(cores = 0.1, maxMs = 60_000): Promise<number> {
    const deadline = Date.now() + maxMs;
    for (;;) {
      const before = this.foreignCpuSeconds();
      await new Promise((r) => setTimeout(r, 2000));
      const load = (this.foreignCpuSeconds() - before) / 2;
      if (load < cores || Date.now() >= deadline) return load;
    }
  }

  /**
   * While `work` runs, the local PostgreSQL server's processes are not counted as other work: a
   * scenario that drives the database (scenario 2's PostgreSQL rounds) reports the server's CPU
   * as part of its own figures. Counted as other work, they made the drain scenario's "other
   * processes" read about a quarter of a core on a quiet machine.
   */
  async withDatabaseOurs<T>(work: () => Promise<T>): Promise<T> {
    Atomics.store(this.control, DATABASE_SLOT, 1);
    try {
      return await work();
    } finally {
      // A last sample first, so the server's share of the round is taken while it is ours.
      try {
        this.foreignCpuSeconds();
      } finally {
        Atomics.store(this.control, DATABASE_SLOT, 0);
      }
    }
  }

  stop(): void {
    Atomics.store(this.control, 2, 1);
    Atomics.notify(this.control, 0);
    void this.worker.terminate();
  }
}
