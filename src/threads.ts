/** What hookline's worker threads (sending, checkpointing) share: where their code is, and
 * how they step aside for the main thread. */
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";

/**
 * Where a worker thread's code is. Built, it is the .js file beside the module that starts it.
 * Run from TypeScript sources (the tests, the bench's tsx), it is the .ts file, loaded through tsx
 * (a dev dependency) by a one-line bootstrap.
 */
export function workerEntry(
  starterUrl: string,
  name: string,
): { file: URL | string; eval: boolean } {
  if (!starterUrl.endsWith(".ts"))
    return { file: new URL(`./${name}.js`, starterUrl), eval: false };
  const ts = JSON.stringify(new URL(`./${name}.ts`, starterUrl).href);
  return {
    file: `import("tsx/esm/api").then((tsx) => tsx.tsImport(${ts}, ${JSON.stringify(starterUrl)}))`,
    eval: true,
  };
}

/**
 * Called on a worker thread: gives this thread alone a lower priority. Accepting comes first
 * (architecture.md, step 7): on a busy machine the main thread, which answers the API, must not
 * queue behind a helper thread for a core. Linux schedules threads on their own; when the main
 * thread is idle, the helper still gets a whole core. Best effort: elsewhere, or where it is not
 * allowed, nothing changes.
 */
export function yieldToTheMainThread(niceness: number): void {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, niceness);
  } catch {
    // Not Linux, or not permitted: the thread keeps the process's priority.
  }
}
