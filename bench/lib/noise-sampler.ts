/**
 * The noise meter's sampler, on a thread of its own (see noise.ts): reads /proc twice a second,
 * or at once when the bench asks, and publishes the total CPU ticks of processes outside the
 * bench in the shared buffer.
 */
import { workerData } from "node:worker_threads";
import { DATABASE_SLOT, NOISE_SLOTS, type NoiseShared } from "./noise.js";
import { isBenchWork, readProcessTable } from "./process-table.js";

const EVERY_MS = 500;

const { buffer, root } = workerData as NoiseShared;
const control = new Int32Array(buffer, 0, NOISE_SLOTS);
const total = new Float64Array(buffer, NOISE_SLOTS * 4, 1);

let last = readProcessTable();
let foreignTicks = 0;
let answered = 0;
Atomics.store(control, 1, 1);
Atomics.notify(control, 1);
// Blocking waits are this thread's whole job: it sleeps until asked or until the next sample.
while (Atomics.load(control, 2) === 0) {
  Atomics.wait(control, 0, answered, EVERY_MS);
  answered = Atomics.load(control, 0);
  const now = readProcessTable();
  const database = Atomics.load(control, DATABASE_SLOT) === 1;
  for (const [pid, s] of now) {
    if (isBenchWork(pid, now, root, database)) continue;
    const before = last.get(pid);
    foreignTicks += before ? Math.max(0, s.ticks - before.ticks) : 0;
  }
  last = now;
  total[0] = foreignTicks;
  Atomics.add(control, 1, 1);
  Atomics.notify(control, 1);
}
