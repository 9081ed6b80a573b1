/** What hookline's worker threads (sending, checkpointing) share: where their code is, and
 * how they step aside for the main thread. */
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { bundledThread } from "./thread-bundle.js";

/**
 * Where a worker thread's code is. Built, it is the .js file beside the module that starts it.
 * Run from TypeScript sources (the tests, `npm run demo`), it is the .ts file bundled into one
 * JavaScript file (see {@link bundledThread}).
 */
export function workerEntry(
  starterUrl: string,
  name: string,
): { file: URL | string; eval: boolean } {
  if (!starterUrl.endsWith(".ts"))
    return { file: new URL(`./${name}.js`, starterUrl), eval: false };
  return { file: bundledThread(new URL(`./${name}.ts`, starterUrl)), eval: false };
}

/**
 * Called on a worker thread: sets this thread's nice value alone (Linux schedules threads on
 * their own). A helper thread lowers its priority so that the main thread, which answers the API,
 * does not queue behind it for a core (architecture.md, step 7); when the main thread is idle,
 * the helper still gets a whole core. Best effort: false where it is not allowed or not Linux,
 * and the thread keeps the priority it had. Lowering a nice value again (raising the priority)
 * needs CAP_SYS_NICE or a nice limit (RLIMIT_NICE) that allows it; raising it never does.
 */
export function setThreadNiceness(niceness: number): boolean {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, niceness);
    return true;
  } catch {
    return false;
  }
}
