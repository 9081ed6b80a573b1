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
  /** How much of the machine sat idle meanwhile (see machine.ts). */
  machineIdle: string;
}

/** Concurrency of the ceiling client: the same as hookline's default per-endpoint limit. */
export const CEILING_CONCURRENCY = 100;

/**
 * Runs the ceiling client in its own process against the receiver's `ceiling` group. The first
 * of a run warms up longer: the receiver is a new process then, and on one VM the start ceiling
 * came out 35 % below the next (10,746 against 16,811 requests/s), which flattered the first
 * scenario's ratios.
 */
export async function measureCeiling(ctx: BenchContext, first = false): Promise<CeilingResult> {
  const warmupMs = (ctx.quick ? 500 : 1000) * (first ? 3 : 1);
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
