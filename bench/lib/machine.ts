/**
 * What a run asked of the whole machine: the CPU every process in the path spent per item, and
 * the most items a second that allows on this machine's cores with every core busy all the time.
 * A ratio target above that rate cannot be met on this host, whatever the code does.
 */
import { readFileSync } from "node:fs";
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

/** The whole machine's CPU time so far from /proc/stat's first line, in clock ticks. */
export interface CpuTotals {
  /** Idle, waiting for I/O included. */
  idle: number;
  /** Handling software interrupts: here mostly loopback TCP's receive side. */
  softirq: number;
  total: number;
}

/** The "cpu" line of /proc/stat: user nice system idle iowait irq softirq steal... */
export function parseCpuLine(line: string): CpuTotals {
  const t = line.trim().split(/\s+/).slice(1, 9).map(Number);
  return {
    idle: (t[3] ?? 0) + (t[4] ?? 0),
    softirq: t[6] ?? 0,
    total: t.reduce((a, b) => a + b, 0),
  };
}

export function readCpuTotals(): CpuTotals {
  return parseCpuLine(readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!);
}

/**
 * How much of the machine sat idle between two readings, and how much went to software
 * interrupts. The latter is in no process's CPU time (the kernel counts it apart), so the cores
 * busy that processes' times add up to leave it out; on loopback it is the receiving side of
 * every TCP segment, 4-10 % of the machine in the drains of session 30.
 */
export function idleBetween(before: CpuTotals, after: CpuTotals): string {
  const total = after.total - before.total;
  if (total <= 0) return "the machine's idle share not measured (no time passed)";
  const pct = (n: number) => `${Math.round((100 * n) / total)} %`;
  return `the machine ${pct(after.idle - before.idle)} idle, ${pct(after.softirq - before.softirq)} in software interrupts`;
}
