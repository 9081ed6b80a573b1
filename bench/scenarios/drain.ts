/**
 * 2. Delivery from a backlog: messages already accepted (durably, in the SQLite file) are drained
 * to one endpoint; deliveries per second from the first request to the last, as a ratio to the
 * ceiling; then the same on PostgreSQL with one and two worker processes (postgres.ts).
 */
import { deliveryStates, writeBacklog } from "../lib/backlog.js";
import { removeDataDir } from "../lib/hookline.js";
import { vsCeiling, type Figure, type Scenario } from "../lib/scenario.js";
import { prepareStopped, timedDrain } from "../lib/setup.js";
import { rateBetween } from "../lib/stats.js";
import { postgresDrain } from "./postgres.js";

export const drain: Scenario = {
  name: "drain",
  title: "Delivery from a backlog",
  needsCeiling: true,
  async run(ctx) {
    const count = ctx.quick ? 10_000 : 100_000;
    const group = "drain";
    const { dataDir, appId, endpointIds } = await prepareStopped("drain", [
      { url: `${ctx.receiver.url}/${group}`, uid: "drain" },
    ]);
    try {
      const t0 = performance.now();
      writeBacklog(dataDir, { appId, endpointOf: () => endpointIds[0]!, count });
      const buildMs = performance.now() - t0;
      ctx.log(`  backlog of ${count} written in ${Math.round(buildMs)} ms; draining`);
      const d = await timedDrain(ctx, dataDir, group, count, 120_000, "drain");
      await d.hookline.stop("SIGTERM");
      const { record } = d;
      const rate = rateBetween(record.times, 0, record.count - 1);
      // Every delivery must have ended succeeded, each with one attempt recorded.
      const after = deliveryStates(dataDir);
      const succeeded = after.states.succeeded ?? 0;
      const verified = succeeded === count && after.attempts === count;
      const figures: Figure[] = [
        vsCeiling(
          {
            scenario: "2 drain",
            figure: `SQLite: ${count.toLocaleString("en")} pending → 1 endpoint`,
            value: rate,
            unit: "deliveries/s",
            note: verified
              ? `all ${count} succeeded and recorded; ${cpuPer(d.cpuMs, count)}`
              : `only ${succeeded}/${count} succeeded, ${after.attempts} attempts recorded`,
          },
          0.7,
        ),
      ];
      removeDataDir(dataDir);
      figures.push(...(await postgresDrain(ctx, count)));
      if (!verified) figures[0]!.valid = false;
      return {
        figures,
        details: { count, buildMs, received: record.count, rate, states: after, cpuMs: d.cpuMs },
      };
    } finally {
      removeDataDir(dataDir);
    }
  },
};

/** hookline's CPU time per item, start-up excluded, e.g. "hookline CPU 61 µs/delivery". */
export function cpuPer(cpuMs: number | null, count: number, what = "delivery"): string {
  if (cpuMs === null || count === 0) return "hookline CPU n/a";
  return `hookline CPU ${Math.round((cpuMs * 1000) / count)} µs/${what}`;
}
