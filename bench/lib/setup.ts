/** Steps most scenarios share: a fresh hookline with an app and endpoints, and timed drains. */
import { join } from "node:path";
import { HooklineProcess, freshDataDir, type EndpointSpec } from "./hookline.js";
import { idleBetween, readCpuTotals } from "./machine.js";
import type { GroupRecord } from "./receiver.js";
import type { BenchContext } from "./scenario.js";

export interface Prepared {
  dataDir: string;
  appId: string;
  endpointIds: string[];
}

/**
 * Starts hookline on a fresh data dir, creates one application and the given endpoints through
 * the API (so they are exactly what the API stores), and stops it again: the data dir is then
 * ready for a backlog to be written into it.
 */
export async function prepareStopped(label: string, endpoints: EndpointSpec[]): Promise<Prepared> {
  const dataDir = freshDataDir(label);
  const h = await HooklineProcess.start({ dataDir });
  try {
    const appId = await h.api.createApp(`bench-${label}`);
    const endpointIds: string[] = [];
    for (const ep of endpoints) endpointIds.push(await h.api.createEndpoint(appId, ep));
    return { dataDir, appId, endpointIds };
  } finally {
    await h.stop("SIGTERM");
  }
}

/** Starts hookline on `dataDir`, with a CPU profile when profiling was asked for this scenario. */
export function startHookline(
  ctx: BenchContext,
  dataDir: string,
  profileLabel?: string,
  env?: Record<string, string>,
) {
  return HooklineProcess.start({
    dataDir,
    profileDir: ctx.profileDir && profileLabel ? join(ctx.profileDir, profileLabel) : null,
    env,
  });
}

export interface DrainResult {
  record: GroupRecord;
  hookline: HooklineProcess;
  /** Peak RSS of hookline over the drain, MB. */
  peakRssMB: number | null;
  /** CPU time hookline used from readiness (start-up excluded) to the last expected arrival, ms. */
  cpuMs: number | null;
  /** The part of it its main thread used (the rest: sender threads, GC and other helpers). */
  mainCpuMs: number | null;
  /** CPU time the receiver used over the same stretch, ms. */
  receiverCpuMs: number | null;
  /** How long that stretch was, ms. */
  elapsedMs: number;
  /** How much of the machine sat idle over it, and in software interrupts (see `idleBetween`). */
  machineIdle: string;
  /** From spawning hookline to the first arrival, ms. */
  startupMs: number | null;
}

/**
 * Starts hookline on a data dir holding a backlog and waits until `group` has received
 * `expected` requests (or `timeoutMs` passed). The caller stops the returned process.
 */
export async function timedDrain(
  ctx: BenchContext,
  dataDir: string,
  group: string,
  expected: number,
  timeoutMs: number,
  profileLabel?: string,
  env?: Record<string, string>,
): Promise<DrainResult> {
  const hookline = await startHookline(ctx, dataDir, profileLabel, env);
  const cpuAtReady = hookline.cpuMs() ?? 0;
  const mainAtReady = hookline.mainThreadCpuMs() ?? 0;
  const receiverAtReady = ctx.receiver.cpuMs();
  const readyAt = performance.now();
  const totalsAtReady = readCpuTotals();
  await ctx.receiver.waitFor(group, expected, timeoutMs);
  const elapsedMs = performance.now() - readyAt;
  const machineIdle = idleBetween(totalsAtReady, readCpuTotals());
  const cpuAtEnd = hookline.cpuMs();
  const mainAtEnd = hookline.mainThreadCpuMs();
  const receiverAtEnd = ctx.receiver.cpuMs();
  const cpuMs = cpuAtEnd === null ? null : cpuAtEnd - cpuAtReady;
  const mainCpuMs = mainAtEnd === null ? null : mainAtEnd - mainAtReady;
  const peakRssMB = hookline.peakRssMB();
  const record = await ctx.receiver.record(group);
  return {
    record,
    hookline,
    peakRssMB,
    cpuMs,
    mainCpuMs,
    receiverCpuMs:
      receiverAtReady === null || receiverAtEnd === null ? null : receiverAtEnd - receiverAtReady,
    elapsedMs,
    machineIdle,
    startupMs: record.first === null ? null : record.first - hookline.spawnedAt,
  };
}
