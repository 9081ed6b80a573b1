/**
 * 5. Scheduling lag: deliveries due at known future times (written into the store with their
 * next_attempt_at, spread evenly at a moderate rate); lag is the request's arrival at the receiver
 * minus its due time. Arrival includes the loopback hop, a fraction of a millisecond.
 */
import { writeBacklog } from "../lib/backlog.js";
import { removeDataDir } from "../lib/hookline.js";
import type { Figure, Scenario } from "../lib/scenario.js";
import { prepareStopped, startHookline } from "../lib/setup.js";
import { WARM_UP_MS, lagsByDueTime, latencySummary } from "../lib/stats.js";

export const lag: Scenario = {
  name: "lag",
  title: "Scheduling lag",
  needsCeiling: false,
  async run(ctx) {
    const rate = ctx.quick ? 200 : 500;
    const seconds = ctx.quick ? 3 : 10;
    const count = rate * seconds;
    const group = "lag";
    await ctx.receiver.rule(group, { recordIds: true });
    const { dataDir, appId, endpointIds } = await prepareStopped("lag", [
      { url: `${ctx.receiver.url}/${group}` },
    ]);
    try {
      // Far enough ahead that hookline is up and idle before the first delivery is due.
      const firstDue = Date.now() + (ctx.quick ? 1_500 : 3_000);
      const dueAt = (i: number) => Math.round(firstDue + (i * 1000) / rate);
      const ids = writeBacklog(
        dataDir,
        { appId, endpointOf: () => endpointIds[0]!, count, dueAt },
        true,
      );
      const due = new Map(ids.map((id, i) => [id, dueAt(i)]));
      const h = await startHookline(ctx, dataDir);
      const lateStart = h.readyAt > firstDue;
      await ctx.receiver.waitFor(group, count, seconds * 1000 + 30_000);
      await h.stop("SIGTERM");
      const rec = await ctx.receiver.record(group);
      const lags = lagsByDueTime(rec, due, firstDue + WARM_UP_MS);
      const s = latencySummary(lags.steady);
      const w = latencySummary(lags.warmUp);
      const label = `${count.toLocaleString("en")} deliveries due at ${rate}/s`;
      const note = lateStart
        ? "hookline started after the first due time: lag overstated"
        : `after the first ${WARM_UP_MS} ms of due times`;
      const figures: Figure[] = [
        { scenario: "5 lag", figure: `${label}: p50`, value: s.p50, unit: "ms", note },
        {
          scenario: "5 lag",
          figure: `${label}: p99`,
          value: s.p99,
          unit: "ms",
          note: `max ${s.max?.toFixed(1)} ms; the first ${WARM_UP_MS} ms: p99 ${w.p99?.toFixed(1)} ms, max ${w.max?.toFixed(1)} ms; ${rec.count}/${count} arrived`,
          valid: rec.count >= count,
          pass: rec.count >= count ? null : false,
        },
      ];
      return { figures, details: { rate, count, ...s, warmUp: w, arrived: rec.count } };
    } finally {
      removeDataDir(dataDir);
    }
  },
};
