/** 1. Ceiling: a minimal undici client sending signed POSTs straight to the receiver. */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { BenchContext } from "../lib/scenario.js";

export interface CeilingResult {
  requests: number;
  elapsedMs: number;
  rate: number;
  errors: number;
  /** The client's CPU time per request, µs (user + system, all its threads). */
  cpuUsPerRequest: number | null;
}

/** Concurrency of the ceiling client: the same as hookline's default per-endpoint limit. */
export const CEILING_CONCURRENCY = 100;

/** Runs the ceiling client in its own process against the receiver's `ceiling` group. */
export async function measureCeiling(ctx: BenchContext): Promise<CeilingResult> {
  const warmupMs = ctx.quick ? 500 : 1000;
  const durationMs = ctx.quick ? 1500 : 5000;
  const child = fork(
    fileURLToPath(new URL("../lib/ceiling-client.ts", import.meta.url)),
    [
      `${ctx.receiver.url}/ceiling`,
      String(CEILING_CONCURRENCY),
      String(warmupMs),
      String(durationMs),
    ],
    { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] },
  );
  const result = await new Promise<CeilingResult>((resolve, reject) => {
    child.once("message", (m) => resolve(m as CeilingResult));
    child.once("exit", (code) => reject(new Error(`ceiling client exited with ${code}`)));
  });
  await new Promise((r) => (child.exitCode === null ? child.once("exit", r) : r(null)));
  return result;
}
