/**
 * 6. Backlog growth: the delivery rate with 10,000 and with 1,000,000 pending deliveries, and
 * hookline's peak memory with 1,000,000 pending. Both rates are taken over the same stretch of
 * each drain (arrivals 1,000 to 9,000, so start-up and JIT warm-up are the same); the small
 * backlog is drained three times and its median used. The large drain also runs on further, and
 * its longer-window rate is shown beside.
 */
import { writeBacklog } from "../lib/backlog.js";
import { removeDataDir } from "../lib/hookline.js";
import type { BenchContext, Figure, Scenario } from "../lib/scenario.js";
import { prepareStopped, timedDrain } from "../lib/setup.js";
import { median, rateBetween } from "../lib/stats.js";

const WINDOW: [number, number] = [1_000, 9_000];
const RSS_LIMIT_MB = 512;

interface Run {
  pending: number;
  rate: number | null;
  longRate: number | null;
  received: number;
  peakRssMB: number | null;
  startupMs: number | null;
  buildMs: number;
}

async function run(
  ctx: BenchContext,
  pending: number,
  measure: number,
  label: string,
  timeoutMs = 120_000,
): Promise<Run> {
  const group = `backlog${label}`;
  const { dataDir, appId, endpointIds } = await prepareStopped(`backlog${label}`, [
    { url: `${ctx.receiver.url}/${group}` },
  ]);
  try {
    const t0 = performance.now();
    writeBacklog(dataDir, { appId, endpointOf: () => endpointIds[0]!, count: pending });
    const buildMs = performance.now() - t0;
    ctx.log(
      `  ${pending.toLocaleString("en")} pending written in ${(buildMs / 1000).toFixed(1)} s`,
    );
    const d = await timedDrain(ctx, dataDir, group, measure, timeoutMs, `backlog-${pending}`);
    await d.hookline.stop("SIGKILL");
    const { record } = d;
    return {
      pending,
      rate: rateBetween(record.times, WINDOW[0], WINDOW[1]),
      longRate: rateBetween(record.times, WINDOW[0], record.count - 1),
      received: record.count,
      peakRssMB: d.peakRssMB,
      startupMs: d.startupMs,
      buildMs,
    };
  } finally {
    removeDataDir(dataDir);
  }
}

export const backlog: Scenario = {
  name: "backlog",
  title: "Backlog growth",
  needsCeiling: false,
  async run(ctx) {
    const large = ctx.quick ? 100_000 : 1_000_000;
    const smallRuns: Run[] = [];
    for (let i = 0; i < (ctx.quick ? 1 : 3); i++) {
      smallRuns.push(await run(ctx, 10_000, 10_000, `small${i}`));
    }
    // Bounded in time: a store whose claims slow down with the backlog must not stall the run.
    const big = await run(
      ctx,
      large,
      ctx.quick ? 20_000 : 100_000,
      "large",
      ctx.quick ? 15_000 : 40_000,
    );
    const small = median(smallRuns.map((r) => r.rate ?? 0));
    const ratio = small && big.rate ? big.rate / small : null;
    const bigLabel = `${large.toLocaleString("en")} pending`;
    const figures: Figure[] = [
      {
        scenario: "6 backlog",
        figure: "10,000 pending: delivery rate",
        value: small,
        unit: "deliveries/s",
        note: `median of ${smallRuns.length}: ${smallRuns.map((r) => Math.round(r.rate ?? 0)).join(", ")}; arrivals ${WINDOW.join("–")}`,
      },
      {
        scenario: "6 backlog",
        figure: `${bigLabel}: delivery rate`,
        value: big.rate,
        unit: "deliveries/s",
        ratio,
        ratioOf: "10,000 pending",
        target: "≥ 0.90 × 10,000 pending",
        pass: ratio === null ? false : ratio >= 0.9,
        note: `over arrivals 1,000–${big.received.toLocaleString("en")}: ${Math.round(big.longRate ?? 0)}/s; first delivery ${Math.round(big.startupMs ?? 0)} ms after spawn (10,000: ${Math.round(smallRuns[0]?.startupMs ?? 0)} ms)`,
      },
      {
        scenario: "6 backlog",
        figure: `${bigLabel}: peak RSS`,
        value: big.peakRssMB,
        unit: "MB",
        target: `< ${RSS_LIMIT_MB} MB`,
        pass: big.peakRssMB === null ? null : big.peakRssMB < RSS_LIMIT_MB,
        note: `10,000 pending: ${Math.round(smallRuns[0]?.peakRssMB ?? 0)} MB; backlog written in ${(big.buildMs / 1000).toFixed(1)} s`,
      },
    ];
    return { figures, details: { small: smallRuns, large: big } };
  },
};
