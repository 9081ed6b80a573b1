/**
 * How much CPU processes outside this benchmark used while it ran: on a shared 2-core machine a
 * type-check or test run elsewhere moves every figure, so each scenario reports the cores other
 * processes took. Samples /proc twice a second; a process that starts and ends between two samples
 * is missed, so the figure is a lower bound.
 */
import { readFileSync, readdirSync } from "node:fs";

const TICKS_PER_SECOND = 100;

interface Sample {
  ppid: number;
  ticks: number;
}

function readAll(): Map<number, Sample> {
  const out = new Map<number, Sample>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(Number(name), {
        ppid: Number(fields[1]),
        ticks: Number(fields[11]) + Number(fields[12]),
      });
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

/** Accumulates the CPU time of processes that are not this one or its descendants. */
export class NoiseMeter {
  private last = new Map<number, Sample>();
  private foreignTicks = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly root = process.pid) {
    this.last = readAll();
    this.timer = setInterval(() => this.sample(), 500);
    this.timer.unref();
  }

  private ours(pid: number, all: Map<number, Sample>): boolean {
    for (let p = pid, hops = 0; p > 1 && hops < 64; hops++) {
      if (p === this.root) return true;
      p = all.get(p)?.ppid ?? 0;
    }
    return false;
  }

  private sample(): void {
    const now = readAll();
    for (const [pid, s] of now) {
      if (this.ours(pid, now)) continue;
      const before = this.last.get(pid);
      this.foreignTicks += before ? Math.max(0, s.ticks - before.ticks) : 0;
    }
    this.last = now;
  }

  /** CPU seconds other processes have used since the meter started. */
  foreignCpuSeconds(): number {
    this.sample();
    return this.foreignTicks / TICKS_PER_SECOND;
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

  stop(): void {
    clearInterval(this.timer);
  }
}
