/**
 * 9. Retry storm: deliveries all fail at once (the receiver answers each message's first request
 * with 429), then the endpoint is healthy; the largest number of retries arriving within any one
 * second, with a retry ladder of 5 s, 5 s without jitter and with full jitter. 429 rather than
 * 503 so the circuit breaker (which would hold everything until a probe five minutes later) stays
 * out of the picture and the ladder alone shapes the retries.
 */
import { writeBacklog } from "../lib/backlog.js";
import { removeDataDir } from "../lib/hookline.js";
import type { BenchContext, Figure, Scenario } from "../lib/scenario.js";
import { prepareStopped, startHookline } from "../lib/setup.js";
import { peakInWindow } from "../lib/stats.js";

type Strategy = "none" | "full";

async function runStorm(ctx: BenchContext, strategy: Strategy, count: number) {
  const group = `storm-${strategy}`;
  await ctx.receiver.rule(group, { failFirstPerId: true, failStatus: 429, recordIds: true });
  const { dataDir, appId, endpointIds } = await prepareStopped(group, [
    {
      url: `${ctx.receiver.url}/${group}`,
      deliveryPolicy: { retry: { delays: [5, 5], jitter: { strategy } } },
    },
  ]);
  try {
    writeBacklog(dataDir, { appId, endpointOf: () => endpointIds[0]!, count });
    const h = await startHookline(ctx, dataDir);
    await ctx.receiver.waitFor(group, 2 * count, 30_000);
    await h.stop("SIGKILL");
    const rec = await ctx.receiver.record(group);
    const seen = new Set<string>();
    const first: number[] = [];
    const retries: number[] = [];
    rec.ids?.forEach((id, i) => {
      if (seen.has(id)) retries.push(rec.times[i]!);
      else {
        seen.add(id);
        first.push(rec.times[i]!);
      }
    });
    return {
      failedTogetherMs: first.length ? first[first.length - 1]! - first[0]! : null,
      retries: retries.length,
      peak: peakInWindow(retries, 1000),
      spreadMs: retries.length ? retries[retries.length - 1]! - retries[0]! : null,
    };
  } finally {
    removeDataDir(dataDir);
  }
}

export const storm: Scenario = {
  name: "storm",
  title: "Retry storm",
  needsCeiling: false,
  async run(ctx) {
    const count = ctx.quick ? 300 : 1_000;
    // The quick run saves half the wait by running both at once, in two hookline processes.
    const [none, full] = ctx.quick
      ? await Promise.all([runStorm(ctx, "none", count), runStorm(ctx, "full", count)])
      : [await runStorm(ctx, "none", count), await runStorm(ctx, "full", count)];
    const ratio = none.peak ? full.peak / none.peak : null;
    const n = count.toLocaleString("en");
    const figures: Figure[] = [
      {
        scenario: "9 storm",
        figure: `${n} fail together; peak retries/1 s, no jitter`,
        value: none.peak,
        unit: "requests",
        valid: none.retries >= count,
        note: `first attempts within ${Math.round(none.failedTogetherMs ?? 0)} ms; retries spread over ${Math.round(none.spreadMs ?? 0)} ms; ${none.retries}/${count} retried`,
      },
      {
        scenario: "9 storm",
        figure: `${n} fail together; peak retries/1 s, full jitter`,
        value: full.peak,
        unit: "requests",
        ratio,
        ratioOf: "no jitter",
        target: "≤ 0.33 × no jitter",
        pass: ratio === null || full.retries < count ? false : ratio <= 1 / 3,
        note: `retries spread over ${Math.round(full.spreadMs ?? 0)} ms; ${full.retries}/${count} retried`,
      },
    ];
    return { figures, details: { none, full } };
  },
};
