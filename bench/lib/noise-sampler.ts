/**
 * The noise meter's sampler, on a thread of its own (see noise.ts): reads /proc twice a second,
 * or at once when the bench asks, and publishes the total CPU ticks of processes outside the
 * bench in the shared buffer.
 */
import { readFileSync, readdirSync } from "node:fs";
import { workerData } from "node:worker_threads";
import { DATABASE_COMMAND, DATABASE_SLOT, NOISE_SLOTS, type NoiseShared } from "./noise.js";

const EVERY_MS = 500;

interface Sample {
  ppid: number;
  ticks: number;
  command: string;
}

function readAll(): Map<number, Sample> {
  const out = new Map<number, Sample>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const fields = stat.slice(close + 2).split(" ");
      out.set(Number(name), {
        ppid: Number(fields[1]),
        ticks: Number(fields[11]) + Number(fields[12]),
        command: stat.slice(stat.indexOf("(") + 1, close),
      });
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

const { buffer, root } = workerData as NoiseShared;
const control = new Int32Array(buffer, 0, NOISE_SLOTS);
const total = new Float64Array(buffer, NOISE_SLOTS * 4, 1);

function ours(pid: number, all: Map<number, Sample>): boolean {
  const database = Atomics.load(control, DATABASE_SLOT) === 1;
  if (database && all.get(pid)?.command === DATABASE_COMMAND) return true;
  for (let p = pid, hops = 0; p > 1 && hops < 64; hops++) {
    if (p === root) return true;
    p = all.get(p)?.ppid ?? 0;
  }
  return false;
}

let last = readAll();
let foreignTicks = 0;
let answered = 0;
Atomics.store(control, 1, 1);
Atomics.notify(control, 1);
// Blocking waits are this thread's whole job: it sleeps until asked or until the next sample.
while (Atomics.load(control, 2) === 0) {
  Atomics.wait(control, 0, answered, EVERY_MS);
  answered = Atomics.load(control, 0);
  const now = readAll();
  for (const [pid, s] of now) {
    if (ours(pid, now)) continue;
    const before = last.get(pid);
    foreignTicks += before ? Math.max(0, s.ticks - before.ticks) : 0;
  }
  last = now;
  total[0] = foreignTicks;
  Atomics.add(control, 1, 1);
  Atomics.notify(control, 1);
}
