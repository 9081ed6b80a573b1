/** Starts scenario 3's storage-free relay (relay.ts) in its own process. */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { cpuOf } from "./process-table.js";
import type { RelayReady } from "./relay.js";

export interface RelayProcess {
  /** Base URL; it takes posts on any path. */
  url: string;
  /** CPU time it has used so far (user + system, all its threads), ms; null once it ended. */
  cpuMs(): number | null;
  stop(): Promise<void>;
}

/**
 * A relay sending what it is posted to `target`, up to `concurrency` requests at once, in
 * `processes` processes sharing its port.
 */
export async function startRelay(
  target: string,
  concurrency: number,
  processes = 1,
): Promise<RelayProcess> {
  const child = fork(
    fileURLToPath(new URL("./relay.ts", import.meta.url)),
    [target, String(concurrency), String(processes)],
    {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    },
  );
  const { port, pids } = await new Promise<RelayReady>((resolve, reject) => {
    child.once("message", (m) => resolve(m as RelayReady));
    child.once("exit", (code) => reject(new Error(`relay exited with ${code}`)));
  });
  const exited = new Promise((r) => (child.exitCode === null ? child.once("exit", r) : r(null)));
  return {
    url: `http://127.0.0.1:${port}`,
    cpuMs() {
      let ms = 0;
      for (const pid of new Set([child.pid!, ...pids])) {
        const used = cpuOf(`/proc/${pid}/stat`);
        if (used === null) return null;
        ms += used;
      }
      return ms;
    },
    async stop() {
      if (child.connected) child.disconnect();
      await exited;
    },
  };
}
