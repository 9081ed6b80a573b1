/**
 * 8. Isolation: four fast endpoints and one that answers in 3 s. (a) Throughput: a backlog for
 * the fast endpoints, with every tenth delivery going to the slow one, drained; the fast
 * endpoints' rate against the same backlog without the slow endpoint (two rounds, alternated;
 * medians). (b) p99: deliveries to the
 * fast endpoints due at a steady rate, with the slow endpoint's due alongside; the fast
 * endpoints' scheduling-lag p99 against a run without the slow endpoint.
 */
import { writeBacklog } from "../lib/backlog.js";
import { removeDataDir } from "../lib/hookline.js";
import type { BenchContext, Figure, Scenario } from "../lib/scenario.js";
import { prepareStopped, startHookline, timedDrain } from "../lib/setup.js";
import { WARM_UP_MS, lagsByDueTime, latencySummary, median, rateBetween } from "../lib/stats.js";

const FAST = 4;
const SLOW_DELAY_MS = 3_000;

async function setUp(ctx: BenchContext, label: string, recordIds: boolean) {
  await ctx.receiver.reset();
  await ctx.receiver.rule("slow", { delayMs: SLOW_DELAY_MS });
  await ctx.receiver.rule("fast", { recordIds });
  const specs = [
    ...Array.from({ length: FAST }, (_, i) => ({ url: `${ctx.receiver.url}/fast/${i}` })),
    { url: `${ctx.receiver.url}/slow` },
  ];
  const p = await prepareStopped(label, specs);
  return { ...p, fast: p.endpointIds.slice(0, FAST), slow: p.endpointIds[FAST]! };
}

/** (a): fast deliveries per second while draining, with or without every tenth to the slow one. */
async function throughput(ctx: BenchContext, withSlow: boolean): Promise<number | null> {
  const fastCount = ctx.quick ? 4_000 : 25_000;
  const s = await setUp(ctx, `iso-rate-${withSlow ? "slow" : "alone"}`, false);
  try {
    // In due order: nine fast (round robin) then, with the slow endpoint, one slow.
    const total = withSlow ? Math.floor((fastCount * 10) / 9) : fastCount;
    writeBacklog(s.dataDir, {
      appId: s.appId,
      count: total,
      endpointOf: (i) => (withSlow && i % 10 === 9 ? s.slow : s.fast[i % FAST]!),
      dueAt: (() => {
        const base = Date.now();
        return (i: number) => base + Math.floor(i / 100);
      })(),
    });
    const fastExpected = withSlow ? total - Math.floor(total / 10) : total;
    const d = await timedDrain(ctx, s.dataDir, "fast", fastExpected, 120_000);
    await d.hookline.stop("SIGKILL");
    return rateBetween(d.record.times, 0, d.record.count - 1);
  } finally {
    removeDataDir(s.dataDir);
  }
}

/** A note when either run's hookline was up only after its first delivery was due. */
function lateStart(beside: number, alone: number): string {
  if (beside === 0 && alone === 0) return "";
  return `; hookline was up ${beside} ms (beside) and ${alone} ms (without) after the first due time: lag overstated`;
}

/** (b): the fast endpoints' lag from due time to arrival, p50/p99, at a steady rate. */
async function steadyLag(ctx: BenchContext, withSlow: boolean) {
  const rate = ctx.quick ? 500 : 1000;
  const seconds = ctx.quick ? 2 : 8;
  const slowRate = 100;
  const s = await setUp(ctx, `iso-lag-${withSlow ? "slow" : "alone"}`, true);
  try {
    const firstDue = Date.now() + (ctx.quick ? 1_500 : 3_000);
    const fastCount = rate * seconds;
    const fastDue = (i: number) => Math.round(firstDue + (i * 1000) / rate);
    const ids = writeBacklog(
      s.dataDir,
      { appId: s.appId, count: fastCount, endpointOf: (i) => s.fast[i % FAST]!, dueAt: fastDue },
      true,
    );
    if (withSlow) {
      writeBacklog(s.dataDir, {
        appId: s.appId,
        count: slowRate * seconds,
        endpointOf: () => s.slow,
        dueAt: (i) => Math.round(firstDue + (i * 1000) / slowRate),
      });
    }
    const due = new Map(ids.map((id, i) => [id, fastDue(i)]));
    const h = await startHookline(ctx, s.dataDir);
    // Up after the first due time (a slow start on a slow stretch): the first deliveries wait
    // for start-up, not for the engine, and the p99 says so.
    const lateStartMs = Math.max(0, h.readyAt - firstDue);
    await ctx.receiver.waitFor("fast", fastCount, seconds * 1000 + 30_000);
    await h.stop("SIGKILL");
    const rec = await ctx.receiver.record("fast");
    const lags = lagsByDueTime(rec, due, firstDue + WARM_UP_MS);
    return { ...latencySummary(lags.steady), warmUp: latencySummary(lags.warmUp), lateStartMs };
  } finally {
    removeDataDir(s.dataDir);
  }
}

export const isolation: Scenario = {
  name: "isolation",
  title: "Isolation from a slow endpoint",
  needsCeiling: false,
  async run(ctx) {
    // Alternated and repeated, so that a noisy moment does not decide the comparison.
    const aloneRuns: number[] = [];
    const besideRuns: number[] = [];
    for (let round = 0; round < (ctx.quick ? 1 : 2); round++) {
      aloneRuns.push((await throughput(ctx, false)) ?? 0);
      besideRuns.push((await throughput(ctx, true)) ?? 0);
    }
    const alone = median(aloneRuns);
    const beside = median(besideRuns);
    const lagAlone = await steadyLag(ctx, false);
    const lagBeside = await steadyLag(ctx, true);
    const ratio = alone && beside ? beside / alone : null;
    const p99Ratio = lagAlone.p99 && lagBeside.p99 ? lagBeside.p99 / lagAlone.p99 : null;
    const figures: Figure[] = [
      {
        scenario: "8 isolation",
        figure: `${FAST} fast endpoints, drain rate beside a 3 s one`,
        value: beside,
        unit: "deliveries/s",
        ratio,
        ratioOf: "without it",
        target: "≥ 0.90 × without",
        pass: ratio === null ? false : ratio >= 0.9,
        note: `without the slow endpoint: ${Math.round(alone ?? 0)}/s (runs: ${aloneRuns.map(Math.round).join(", ")} without, ${besideRuns.map(Math.round).join(", ")} beside); every 10th delivery was for the slow one`,
      },
      {
        scenario: "8 isolation",
        figure: "fast endpoints' lag p99 beside a 3 s one",
        value: lagBeside.p99,
        unit: "ms",
        ratio: p99Ratio,
        ratioOf: "without it",
        note: `without: p99 ${lagAlone.p99?.toFixed(1)} ms; p50 ${lagBeside.p50?.toFixed(1)} vs ${lagAlone.p50?.toFixed(1)} ms; after the first ${WARM_UP_MS} ms of due times, whose p99 was ${lagBeside.warmUp.p99?.toFixed(1)} vs ${lagAlone.warmUp.p99?.toFixed(1)} ms; ${ctx.quick ? 500 : 1000}/s due to fast, 100/s to slow${lateStart(lagBeside.lateStartMs, lagAlone.lateStartMs)}`,
      },
    ];
    return { figures, details: { aloneRuns, besideRuns, alone, beside, lagAlone, lagBeside } };
  },
};
