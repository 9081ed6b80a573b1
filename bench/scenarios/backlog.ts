/**
 * 6. Backlog growth: the delivery rate with 10,000 and with 1,000,000 pending deliveries, and
 * hookline's peak memory with 1,000,000 pending. Both rates are taken over the same stretch of
 * each drain (arrivals 1,000 to 9,000, so start-up and JIT warm-up are the same). Each backlog is
 * written once and drained three times from a copy of the same file, the two sizes taking turns
 * so that the machine's drift falls on both alike, and the medians compared: on a fast machine
 * that window lasts under a second, and single runs moved by ±20 %. The large drains also run on
 * further, and their longer-window rate is shown beside.
 */
import { cpSync } from "node:fs";
import { writeBacklog } from "../lib/backlog.js";
import { freshDataDir, removeDataDir, syncDataDir } from "../lib/hookline.js";
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
}

interface Prepared {
  pending: number;
  dataDir: string;
  group: string;
  buildMs: number;
}

/** Writes `pending` deliveries to one endpoint into a fresh, stopped data dir. */
async function prepare(ctx: BenchContext, pending: number, label: string): Promise<Prepared> {
  const group = `backlog${label}`;
  const { dataDir, appId, endpointIds } = await prepareStopped(group, [
    { url: `${ctx.receiver.url}/${group}` },
  ]);
  const t0 = performance.now();
  writeBacklog(dataDir, { appId, endpointOf: () => endpointIds[0]!, count: pending });
  const buildMs = performance.now() - t0;
  ctx.log(`  ${pending.toLocaleString("en")} pending written in ${(buildMs / 1000).toFixed(1)} s`);
  return { pending, dataDir, group, buildMs };
}

/**
 * Drains a copy of a prepared backlog until `measure` arrivals (or `timeoutMs`): every repetition
 * starts from the same file, so the runs differ only by the machine's noise.
 */
async function run(
  ctx: BenchContext,
  prepared: Prepared,
  measure: number,
  timeoutMs: number,
): Promise<Run> {
  const dataDir = freshDataDir(prepared.group);
  try {
    cpSync(prepared.dataDir, dataDir, { recursive: true });
    syncDataDir(dataDir);
    await ctx.receiver.reset();
    const d = await timedDrain(
      ctx,
      dataDir,
      prepared.group,
      measure,
      timeoutMs,
      `backlog-${prepared.pending}`,
    );
    await d.hookline.stop("SIGKILL");
    const { record } = d;
    return {
      pending: prepared.pending,
      rate: rateBetween(record.times, WINDOW[0], WINDOW[1]),
      longRate: rateBetween(record.times, WINDOW[0], record.count - 1),
      received: record.count,
      peakRssMB: d.peakRssMB,
      startupMs: d.startupMs,
    };
  } finally {
    removeDataDir(dataDir);
  }
}

const rates = (runs: Run[]) => runs.map((r) => Math.round(r.rate ?? 0)).join(", ");

export const backlog: Scenario = {
  name: "backlog",
  title: "Backlog growth",
  needsCeiling: false,
  async run(ctx) {
    const large = ctx.quick ? 100_000 : 1_000_000;
    const times = ctx.quick ? 1 : 3;
    const written: Prepared[] = [];
    const write = async (pending: number, label: string) => {
      const p = await prepare(ctx, pending, label);
      written.push(p);
      return { ...p, runs: [] as Run[] };
    };
    let small, big;
    try {
      small = await write(10_000, "small");
      big = await write(large, "large");
      for (let i = 0; i < times; i++) {
        small.runs.push(await run(ctx, small, 10_000, 120_000));
        // Bounded in time: a store whose claims slow down with the backlog must not stall the run.
        big.runs.push(
          await run(ctx, big, ctx.quick ? 20_000 : 100_000, ctx.quick ? 15_000 : 40_000),
        );
      }
    } finally {
      for (const p of written) removeDataDir(p.dataDir);
    }
    const smallRate = median(small.runs.map((r) => r.rate ?? 0));
    const bigRate = median(big.runs.map((r) => r.rate ?? 0));
    const ratio = smallRate && bigRate ? bigRate / smallRate : null;
    const longRate = median(big.runs.map((r) => r.longRate ?? 0));
    const received = Math.min(...big.runs.map((r) => r.received));
    const peakRssMB = Math.max(...big.runs.map((r) => r.peakRssMB ?? 0)) || null;
    const first = (runs: Run[]) => Math.round(runs[0]?.startupMs ?? 0);
    const bigLabel = `${large.toLocaleString("en")} pending`;
    const figures: Figure[] = [
      {
        scenario: "6 backlog",
        figure: "10,000 pending: delivery rate",
        value: smallRate,
        unit: "deliveries/s",
        note: `median of ${small.runs.length}: ${rates(small.runs)}; arrivals ${WINDOW.join("–")}`,
      },
      {
        scenario: "6 backlog",
        figure: `${bigLabel}: delivery rate`,
        value: bigRate,
        unit: "deliveries/s",
        ratio,
        ratioOf: "10,000 pending",
        target: "≥ 0.90 × 10,000 pending",
        pass: ratio === null ? false : ratio >= 0.9,
        note: `median of ${big.runs.length}: ${rates(big.runs)}; over arrivals 1,000–${received.toLocaleString("en")}: ${Math.round(longRate ?? 0)}/s; first delivery ${first(big.runs)} ms after spawn (10,000: ${first(small.runs)} ms)`,
      },
      {
        scenario: "6 backlog",
        figure: `${bigLabel}: peak RSS`,
        value: peakRssMB,
        unit: "MB",
        target: `< ${RSS_LIMIT_MB} MB`,
        pass: peakRssMB === null ? null : peakRssMB < RSS_LIMIT_MB,
        note: `${big.runs.length > 1 ? `the most of ${big.runs.length} runs` : "one run"}; 10,000 pending: ${Math.round(small.runs[0]?.peakRssMB ?? 0)} MB; backlog written in ${(big.buildMs / 1000).toFixed(1)} s`,
      },
    ];
    return { figures, details: { small, large: big } };
  },
};
