/**
 * What the bench reads of processes in /proc (a process's parent, CPU time and command), and
 * whose work a process is. The reading of a stat line and the rule are pure, so they can be
 * tested on lines and tables made up for them; `cpuOf` and `readProcessTable` read /proc.
 */
import { readFileSync, readdirSync } from "node:fs";

/** Clock ticks a second, the unit of /proc's CPU times (USER_HZ, 100 on Linux). */
export const TICKS_PER_SECOND = 100;

/** The command name PostgreSQL's server processes have in /proc. */
export const DATABASE_COMMAND = "postgres";

export interface ProcessSample {
  ppid: number;
  /** User and system CPU so far, in clock ticks. */
  ticks: number;
  /** The command name (`comm`), as /proc/<pid>/stat gives it between parentheses. */
  command: string;
}

/** One line of /proc/<pid>/stat; the command may itself hold spaces and parentheses. */
export function parseStat(stat: string): ProcessSample {
  const close = stat.lastIndexOf(")");
  const fields = stat.slice(close + 2).split(" ");
  return {
    ppid: Number(fields[1]),
    ticks: Number(fields[11]) + Number(fields[12]),
    command: stat.slice(stat.indexOf("(") + 1, close),
  };
}

export function ticksToMs(ticks: number): number {
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** utime + stime of a /proc stat file (a process's or a thread's), in ms; null once it ended. */
export function cpuOf(statPath: string): number | null {
  try {
    return ticksToMs(parseStat(readFileSync(statPath, "utf8")).ticks);
  } catch {
    return null;
  }
}

export function readProcessTable(): Map<number, ProcessSample> {
  const out = new Map<number, ProcessSample>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      out.set(Number(name), parseStat(readFileSync(`/proc/${name}/stat`, "utf8")));
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

/**
 * Whether a process is the bench's work: `root` (the bench) or one of its descendants, or, while
 * `databaseIsOurs` (a scenario drives the local PostgreSQL server and reports its CPU itself),
 * one of the server's processes, which are not the bench's descendants.
 */
export function isBenchWork(
  pid: number,
  table: ReadonlyMap<number, ProcessSample>,
  root: number,
  databaseIsOurs: boolean,
): boolean {
  if (databaseIsOurs && table.get(pid)?.command === DATABASE_COMMAND) return true;
  for (let p = pid, hops = 0; p > 1 && hops < 64; hops++) {
    if (p === root) return true;
    p = table.get(p)?.ppid ?? 0;
  }
  return false;
}
