/** This test process's own threads as Linux shows them, to check the priority helpers take. */
import { readdirSync, readFileSync } from "node:fs";

/** Thread ids of this process now. */
export function threadIds(): string[] {
  return readdirSync(`/proc/${process.pid}/task`);
}

/** The nice value of one of this process's threads (field 19 of its stat line). */
export function niceOf(tid: string): number {
  const stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
}
