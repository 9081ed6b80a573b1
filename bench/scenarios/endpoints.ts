/**
 * 7. Many endpoints: 10,000 endpoints with one pending delivery each, against the same number of
 * deliveries to one endpoint; rate from the first request to the last. All endpoints share the
 * receiver's origin (distinct paths), so they share one undici connection pool; what differs is
 * hookline's per-endpoint state: runtimes, queues, limits, breakers, claim exclusions.
 */
import { writeBacklog, writeEndpoints } from "../lib/backlog.js";
import { removeDataDir } from "../lib/hookline.js";
import type { BenchContext, Figure, Scenario } from "../lib/scenario.js";
import { prepareStopped, timedDrain } from "../lib/setup.js";
import { rateBetween } from "../lib/stats.js";

async function drainTo(ctx: BenchContext, count: number, many: boolean) {
  const group = many ? "many" : "one";
  const prepared = await prepareStopped(
    group,
    many ? [] : [{ url: `${ctx.receiver.url}/${group}` }],
  );
  const { dataDir, appId } = prepared;
  try {
    const endpointIds = many
      ? writeEndpoints(dataDir, appId, count, (i) => `${ctx.receiver.url}/${group}/${i}`)
      : prepared.endpointIds;
    writeBacklog(dataDir, {
      appId,
      endpointOf: (i) => endpointIds[i % endpointIds.length]!,
      count,
    });
    const d = await timedDrain(ctx, dataDir, group, count, 120_000, `endpoints-${group}`);
    await d.hookline.stop("SIGKILL");
    return {
      rate: rateBetween(d.record.times, 0, d.record.count - 1),
      received: d.record.count,
      peakRssMB: d.peakRssMB,
      startupMs: d.startupMs,
    };
  } finally {
    removeDataDir(dataDir);
  }
}

export const endpoints: Scenario = {
  name: "endpoints",
  title: "Many endpoints",
  needsCeiling: true,
  async run(ctx) {
    const count = ctx.quick ? 1_000 : 10_000;
    const n = count.toLocaleString("en");
    const one = await drainTo(ctx, count, false);
    const many = await drainTo(ctx, count, true);
    const figures: Figure[] = [
      {
        scenario: "7 endpoints",
        figure: `${n} deliveries → 1 endpoint`,
        value: one.rate,
        unit: "deliveries/s",
        ceilingMin: null,
        valid: one.received >= count,
        note: `${one.received}/${count} arrived`,
      },
      {
        scenario: "7 endpoints",
        figure: `${n} endpoints × 1 delivery`,
        value: many.rate,
        unit: "deliveries/s",
        ceilingMin: null,
        valid: many.received >= count,
        note: `${many.rate && one.rate ? (many.rate / one.rate).toFixed(2) : "n/a"} × the one-endpoint rate; ${many.received}/${count} arrived; peak RSS ${Math.round(many.peakRssMB ?? 0)} MB`,
      },
    ];
    return { figures, details: { count, one, many } };
  },
};
