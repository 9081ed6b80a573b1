/**
 * 3. Accept and deliver together: clients post messages through the API, one request per message,
 * while hookline delivers them; the figure is messages per second from the first post to the last
 * delivery, as a ratio to the ceiling (each message crosses HTTP twice).
 */
import { deliveryStates } from "../lib/backlog.js";
import { freshDataDir, removeDataDir } from "../lib/hookline.js";
import { closedLoop } from "../lib/load.js";
import { idleBetween, machineShare, readCpuTotals } from "../lib/machine.js";
import { vsCeiling, type Scenario } from "../lib/scenario.js";
import { startHookline } from "../lib/setup.js";
import { latencySummary } from "../lib/stats.js";
import { cpuPer, perItem } from "./drain.js";

/** Concurrent API clients. */
const CLIENTS = 64;

export const together: Scenario = {
  name: "together",
  title: "Accept and deliver together",
  needsCeiling: true,
  async run(ctx) {
    const count = ctx.quick ? 5_000 : 50_000;
    const group = "together";
    const dataDir = freshDataDir("together");
    try {
      const h = await startHookline(ctx, dataDir, "together");
      const appId = await h.api.createApp("bench-together");
      await h.api.createEndpoint(appId, { url: `${ctx.receiver.url}/${group}`, uid: "together" });
      const cpu0 = h.cpuMs();
      const main0 = h.mainThreadCpuMs();
      const receiver0 = ctx.receiver.cpuMs();
      const clients0 = process.cpuUsage();
      const totals0 = readCpuTotals();
      const posted = await closedLoop({ url: h.url, appId }, { clients: CLIENTS, count });
      const seen = await ctx.receiver.waitFor(group, count, 120_000);
      const machineIdle = idleBetween(totals0, readCpuTotals());
      const timeline = deliveredWhilePosting(await ctx.receiver.record(group), posted);
      const cpuMs = (h.cpuMs() ?? 0) - (cpu0 ?? 0);
      const mainCpuMs = (h.mainThreadCpuMs() ?? 0) - (main0 ?? 0);
      const clientsUs = process.cpuUsage(clients0);
      const clientsCpuMs = (clientsUs.user + clientsUs.system) / 1000;
      const receiverCpuMs = (ctx.receiver.cpuMs() ?? 0) - (receiver0 ?? 0);
      await h.stop("SIGTERM");
      const elapsedMs = seen.last === null ? null : seen.last - posted.firstSentAt;
      const rate = elapsedMs ? (count / elapsedMs) * 1000 : null;
      const after = deliveryStates(dataDir);
      const ok =
        posted.ok === count && seen.count >= count && (after.states.succeeded ?? 0) === count;
      const accept = latencySummary(posted.latencies);
      const postRate = (posted.ok / (posted.lastAnsweredAt - posted.firstSentAt)) * 1000;
      const machine = machineShare(
        cpuMs + clientsCpuMs + receiverCpuMs,
        count,
        elapsedMs,
        "message",
      );
      return {
        figures: [
          {
            ...vsCeiling(
              {
                scenario: "3 together",
                figure: `${count.toLocaleString("en")} posts (${CLIENTS} clients) → delivered`,
                value: rate,
                unit: "messages/s",
                note: ok
                  ? `posting alone ran at ${Math.round(postRate)}/s; ${cpuPer(cpuMs, count, "message")}, of it the main thread ${perItem(mainCpuMs, count, "message")}; the bench process (the posting clients) ${perItem(clientsCpuMs, count, "post")}, the receiver ${perItem(receiverCpuMs, count, "request")}; ${machine.text}; ${machineIdle}`
                  : `posted ${posted.ok}/${count} (${posted.firstError ?? "no error"}), delivered ${seen.count}`,
              },
              0.45,
            ),
            valid: ok,
          },
        ],
        details: {
          count,
          clients: CLIENTS,
          elapsedMs,
          rate,
          postRate,
          cpuMs: {
            hookline: cpuMs,
            main: mainCpuMs,
            clients: clientsCpuMs,
            receiver: receiverCpuMs,
          },
          machine,
          timeline,
          accept,
          received: seen,
          states: after,
        },
      };
    } finally {
      removeDataDir(dataDir);
    }
  },
};

/**
 * How delivery went while the clients posted and after: deliveries that arrived before the last
 * post was answered, and the rate of each phase. The rest of the run is the backlog the posts
 * left, drained with the clients gone.
 */
function deliveredWhilePosting(
  record: { times: Float64Array },
  posted: { firstSentAt: number; lastAnsweredAt: number },
): {
  whilePosting: number;
  postingMs: number;
  afterMs: number;
  ratePosting: number;
  rateAfter: number;
} {
  const times = record.times;
  let whilePosting = 0;
  let last = posted.lastAnsweredAt;
  for (const t of times) {
    if (t <= posted.lastAnsweredAt) whilePosting++;
    if (t > last) last = t;
  }
  const postingMs = posted.lastAnsweredAt - posted.firstSentAt;
  const afterMs = last - posted.lastAnsweredAt;
  return {
    whilePosting,
    postingMs,
    afterMs,
    ratePosting: postingMs > 0 ? (whilePosting / postingMs) * 1000 : 0,
    rateAfter: afterMs > 0 ? ((times.length - whilePosting) / afterMs) * 1000 : 0,
  };
}
