/**
 * What a run asked of the whole machine: the CPU every process in the path spent per item, and
 * the most items a second that allows on this machine's cores with every core busy all the time.
 * A ratio target above that rate cannot be met on this host, whatever the code does.
 */
import { availableParallelism } from "node:os";
import { readProcessTable, ticksToMs } from "./process-table.js";

export interface MachineShare {
  usPerItem: number;
  mostPerSecond: number;
  coresBusy: number | null;
  text: string;
}

/** From the CPU all the processes spent together (ms) over `count` items in `elapsedMs`. */
export function machineShare(
  totalCpuMs: number,
  count: number,
  elapsedMs: number | null,
  item: string,
): MachineShare {
  const cores = availableParallelism();
  const usPerItem = (totalCpuMs * 1000) / count;
  const mostPerSecond = (cores * 1e6) / usPerItem;
  const coresBusy = elapsedMs ? totalCpuMs / elapsedMs : null;
  const busy = coresBusy === null ? "" : `, ${coresBusy.toFixed(2)} busy on average`;
  const text = `${Math.round(usPerItem)} µs/${item} in all: at most ${Math.round(mostPerSecond)}/s on ${cores} cores${busy}`;
  return { usPerItem, mostPerSecond, coresBusy, text };
}

/** CPU ms so far of every process whose command is `comm` (e.g. PostgreSQL's), by pid. */
export function cpuByCommand(comm: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const [pid, p] of readProcessTable()) {
    if (p.command === comm) out.set(pid, ticksToMs(p.ticks));
  }
  return out;
}

/**
 * CPU ms those processes spent since `before` was taken: what each alive now spent since then
 * (all of it, for one started since, such as a new connection's backend). One that exited in
 * between is not counted.
 */
export function cpuSince(comm: string, before: Map<number, number>): number {
  let ms = 0;
  for (const [pid, now] of cpuByCommand(comm)) ms += now - (before.get(pid) ?? 0);
  return ms;
}
