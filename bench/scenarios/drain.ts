/**
 * 2. Delivery from a backlog: messages already accepted (durably, in the SQLite file) are drained
 * to one endpoint; deliveries per second from the first request to the last, as a ratio to the
 * ceiling. The same drain again with no sender thread (HOOKLINE_SENDER_THREADS=0) shows what the
 * thread buys; then the same on PostgreSQL with one and two worker processes (postgres.ts).
 */
import { deliveryStates, writeBacklog } from "../lib/backlog.js";
import { removeDataDir } from "../lib/hookline.js";
import { machineShare } from "../lib/machine.js";
import { vsCeiling, type BenchContext, type Figure, type Scenario } from "../lib/scenario.js";
import { prepareStopped, timedDrain } from "../lib/setup.js";
import { rateBetween } from "../lib/stats.js";
import { postgresDrain } from "./postgres.js";

export const drain: Scenario = {
  name: "drain",
  title: "Delivery from a backlog",
  needsCeiling: true,
  async run(ctx) {
    const count = ctx.quick ? 10_000 : 100_000;
    // The scenario's five drains take minutes, over which the ceiling can move by a third: each is
    // compared with the ceilings measured just before and after it, not the scenario's two.
    const threadedAt = ctx.lastCeiling();
    const threaded = await sqliteDrain(ctx, count, "drain", {});
    const figures: Figure[] = [
      vsCeiling(
        {
          scenario: "2 drain",
          figure: `SQLite: ${count.toLocaleString("en")} pending → 1 endpoint`,
          value: threaded.rate,
          unit: "deliveries/s",
          note: threaded.note,
          valid: threaded.verified,
          ceilingAt: threadedAt,
        },
        0.7,
      ),
    ];
    const singleAt = await ctx.ceiling("after the SQLite drain");
    const single = await sqliteDrain(ctx, count, "drain-one-thread", {
      HOOKLINE_SENDER_THREADS: "0",
    });
    figures.push(
      vsCeiling(
        {
          scenario: "2 drain",
          figure: "SQLite, the same with no sender thread (HOOKLINE_SENDER_THREADS=0)",
          value: single.rate,
          unit: "deliveries/s",
          note: `${single.note}; the sender thread's gain: ${gain(threaded.rate, single.rate)}`,
          valid: single.verified,
          ceilingAt: singleAt,
        },
        null,
      ),
    );
    figures.push(
      ...(await postgresDrain(ctx, count, "after the SQLite drain with no sender thread")),
    );
    return { figures, details: { count, threaded, single } };
  },
};

/** Writes `count` pending deliveries to one endpoint into a fresh SQLite file and drains them. */
async function sqliteDrain(
  ctx: BenchContext,
  count: number,
  group: string,
  env: Record<string, string>,
) {
  const { dataDir, appId, endpointIds } = await prepareStopped(group, [
    { url: `${ctx.receiver.url}/${group}`, uid: group },
  ]);
  try {
    const t0 = performance.now();
    writeBacklog(dataDir, { appId, endpointOf: () => endpointIds[0]!, count });
    const buildMs = performance.now() - t0;
    ctx.log(`  backlog of ${count} written in ${Math.round(buildMs)} ms; draining (${group})`);
    const d = await timedDrain(ctx, dataDir, group, count, 120_000, group, env);
    await d.hookline.stop("SIGTERM");
    const rate = rateBetween(d.record.times, 0, d.record.count - 1);
    // Every delivery must have ended succeeded, each with one attempt recorded.
    const after = deliveryStates(dataDir);
    const succeeded = after.states.succeeded ?? 0;
    const verified = succeeded === count && after.attempts === count;
    // The whole path, as the PostgreSQL drains report it: how much of the two cores went unused.
    const machine =
      d.cpuMs === null || d.receiverCpuMs === null
        ? null
        : machineShare(d.cpuMs + d.receiverCpuMs, count, d.elapsedMs, "delivery");
    const whole = machine
      ? `; the receiver ${perItem(d.receiverCpuMs, count, "request")}; ${machine.text}; ${d.machineIdle}`
      : "";
    const note = verified
      ? `all ${count} succeeded and recorded; ${cpuPer(d.cpuMs, count)}, of it the main thread ${perItem(d.mainCpuMs, count)}${whole}`
      : `only ${succeeded}/${count} succeeded, ${after.attempts} attempts recorded`;
    return {
      rate,
      verified,
      note,
      buildMs,
      received: d.record.count,
      states: after,
      cpuMs: d.cpuMs,
      mainCpuMs: d.mainCpuMs,
      receiverCpuMs: d.receiverCpuMs,
      machine,
    };
  } finally {
    removeDataDir(dataDir);
  }
}

function gain(withThread: number | null, without: number | null): string {
  return withThread && without ? `${(withThread / without).toFixed(2)} ×` : "n/a";
}

/** hookline's CPU time per item, start-up excluded, e.g. "hookline CPU 61 µs/delivery". */
export function cpuPer(cpuMs: number | null, count: number, what = "delivery"): string {
  return `hookline CPU ${perItem(cpuMs, count, what)}`;
}

/** CPU time per item, e.g. "61 µs/delivery". */
export function perItem(cpuMs: number | null, count: number, what = "delivery"): string {
  if (cpuMs === null || count === 0) return "n/a";
  return `${Math.round((cpuMs * 1000) / count)} µs/${what}`;
}
