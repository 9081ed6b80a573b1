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

/**
 * Whether `done` came true within 20 s, looked at every 10 ms: a nice value asked of a thread
 * reaches it in a message, so it shows in /proc a moment later, and a thread started or restarted
 * takes a while to come up. Generous because the suite runs two files at once on a small machine;
 * every caller waits for something that should happen, so a quick answer ends the wait at once.
 */
export async function cameTrue(done: () => boolean): Promise<boolean> {
  const end = Date.now() + 20_000;
  while (!done()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}
