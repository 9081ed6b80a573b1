/**
 * 3. Accept and deliver together: clients post messages through the API, one request per message,
 * while hookline delivers them; the figure is messages per second from the first post to the last
 * delivery, as a ratio to the ceiling (each message crosses HTTP twice). The same posts then go
 * through a storage-free relay (relay.ts), in the same run: what accepting and delivering over HTTP
 * costs on this machine before anything is made durable.
 */
import { availableParallelism } from "node:os";
import { deliveryStates } from "../lib/backlog.js";
import { freshDataDir, removeDataDir } from "../lib/hookline.js";
import { closedLoop, type PostResult } from "../lib/load.js";
import { idleBetween, machineShare, readCpuTotals, type MachineShare } from "../lib/machine.js";
import type { GroupStats } from "../lib/receiver.js";
import { startRelay } from "../lib/relay-process.js";
import { vsCeiling, type BenchContext, type Scenario } from "../lib/scenario.js";
import { startHookline } from "../lib/setup.js";
import { latencySummary } from "../lib/stats.js";
import { CEILING_CONCURRENCY } from "./ceiling.js";
import { cpuPer, perItem } from "./drain.js";

/** Concurrent API clients. */
const CLIENTS = 64;

export const together: Scenario = {
  name: "together",
  title: "Accept and deliver together",
  needsCeiling: true,
  async run(ctx) {
    const count = ctx.quick ? 5_000 : 50_000;
    const hooklineAt = ctx.lastCeiling();
    const dataDir = freshDataDir("together");
    try {
      const h = await startHookline(ctx, dataDir, "together");
      const appId = await h.api.createApp("bench-together");
      await h.api.createEndpoint(appId, { url: `${ctx.receiver.url}/together`, uid: "together" });
      const main0 = h.mainThreadCpuMs();
      const run = await postAndDeliver(
        ctx,
        { url: h.url, appId, cpuMs: () => h.cpuMs() },
        "together",
        count,
      );
      const mainCpuMs = (h.mainThreadCpuMs() ?? 0) - (main0 ?? 0);
      await h.stop("SIGTERM");
      const after = deliveryStates(dataDir);
      const ok = run.ok && (after.states.succeeded ?? 0) === count;

      // The same posts through the least that accepts and delivers over HTTP, in the same run:
      // one process (one thread, as hookline's API is), then one a core.
      // Each part between two ceilings of its own: the host's speed drifts within a minute.
      const relays: { processes: number; m: Measured; ceilingAt: number }[] = [];
      let previous = "hookline";
      for (const processes of RELAY_PROCESSES) {
        const ceilingAt = await ctx.ceiling(`after together, ${previous}`);
        relays.push({ processes, m: await throughRelay(ctx, processes, count), ceilingAt });
        previous = `the relay, ${processesOf(processes)}`;
      }
      return {
        figures: [
          {
            ...vsCeiling(
              {
                scenario: "3 together",
                figure: `${count.toLocaleString("en")} posts (${CLIENTS} clients) → delivered`,
                value: run.rate,
                unit: "messages/s",
                note: ok
                  ? `posting alone ran at ${Math.round(run.postRate)}/s; ${cpuPer(run.cpuMs.server, count, "message")}, of it the main thread ${perItem(mainCpuMs, count, "message")}; ${run.rest}`
                  : `posted ${run.posted.ok}/${count} (${run.posted.firstError ?? "no error"}), delivered ${run.seen.count}, succeeded ${after.states.succeeded ?? 0}`,
              },
              0.45,
            ),
            ceilingAt: hooklineAt,
            valid: ok,
          },
          ...relays.map(({ processes, m, ceilingAt }) => ({
            ...vsCeiling(
              {
                scenario: "3 together",
                figure: `the same through a plain Node relay, nothing stored: ${processesOf(processes)}`,
                value: m.rate,
                unit: "messages/s",
                note: m.ok
                  ? `posting alone ran at ${Math.round(m.postRate)}/s; the relay's CPU ${perItem(m.cpuMs.server, count, "message")}; ${m.rest}`
                  : `posted ${m.posted.ok}/${count} (${m.posted.firstError ?? "no error"}), delivered ${m.seen.count}`,
              },
              null,
            ),
            ceilingAt,
            valid: m.ok,
          })),
        ],
        // hookline against the faster relay, each by its ratio to the ceilings beside it: the
        // host's speed can change between the parts.
        withRatios: ([hook, ...bare]) => {
          const best = Math.max(...bare.map((f) => f.ratio ?? 0));
          if (hook?.ratio && best > 0) {
            hook.note = `${(hook.ratio / best).toFixed(2)} × the faster relay's ratio; ${hook.note}`;
          }
        },
        details: {
          count,
          clients: CLIENTS,
          ...detailsOf(run),
          cpuMs: {
            hookline: run.cpuMs.server,
            main: mainCpuMs,
            clients: run.cpuMs.clients,
            receiver: run.cpuMs.receiver,
          },
          states: after,
          relays: relays.map(({ processes, m }) => ({
            processes,
            ...detailsOf(m),
            cpuMs: { relay: m.cpuMs.server, clients: m.cpuMs.clients, receiver: m.cpuMs.receiver },
          })),
        },
      };
    } finally {
      removeDataDir(dataDir);
    }
  },
};

/** The relay's runs: one process, then one a core of this machine. */
const RELAY_PROCESSES = [...new Set([1, availableParallelism()])];

function processesOf(count: number): string {
  return count === 1 ? "one process" : `${count} processes`;
}

async function throughRelay(
  ctx: BenchContext,
  processes: number,
  count: number,
): Promise<Measured> {
  const group = `together-relay-${processes}`;
  const relay = await startRelay(`${ctx.receiver.url}/${group}`, CEILING_CONCURRENCY, processes);
  try {
    return await postAndDeliver(
      ctx,
      { url: relay.url, appId: "relay", cpuMs: relay.cpuMs },
      group,
      count,
    );
  } finally {
    await relay.stop();
  }
}

interface Measured {
  posted: PostResult;
  seen: GroupStats;
  /** Every post answered and every message delivered. */
  ok: boolean;
  elapsedMs: number | null;
  /** Messages a second from the first post to the last delivery. */
  rate: number | null;
  postRate: number;
  cpuMs: { server: number | null; clients: number; receiver: number };
  machine: MachineShare;
  timeline: ReturnType<typeof deliveredWhilePosting>;
  /** The note's part on the clients', the receiver's and the machine's CPU. */
  rest: string;
}

/**
 * `count` posts from CLIENTS clients to `server` (hookline or the relay), until the receiver's
 * `group` has seen them all: the rate from the first post to the last delivery, and the CPU the
 * server, the clients (this process) and the receiver spent meanwhile.
 */
async function postAndDeliver(
  ctx: BenchContext,
  server: { url: string; appId: string; cpuMs: () => number | null },
  group: string,
  count: number,
): Promise<Measured> {
  const cpu0 = server.cpuMs();
  const receiver0 = ctx.receiver.cpuMs();
  const clients0 = process.cpuUsage();
  const totals0 = readCpuTotals();
  const posted = await closedLoop(
    { url: server.url, appId: server.appId },
    { clients: CLIENTS, count },
  );
  const seen = await ctx.receiver.waitFor(group, count, 120_000);
  const machineIdle = idleBetween(totals0, readCpuTotals());
  const serverCpuMs = cpu0 === null ? null : (server.cpuMs() ?? 0) - cpu0;
  const clientsUs = process.cpuUsage(clients0);
  const clientsCpuMs = (clientsUs.user + clientsUs.system) / 1000;
  const receiverCpuMs = (ctx.receiver.cpuMs() ?? 0) - (receiver0 ?? 0);
  const timeline = deliveredWhilePosting(await ctx.receiver.record(group), posted);
  const elapsedMs = seen.last === null ? null : seen.last - posted.firstSentAt;
  const machine = machineShare(
    (serverCpuMs ?? 0) + clientsCpuMs + receiverCpuMs,
    count,
    elapsedMs,
    "message",
  );
  return {
    posted,
    seen,
    ok: posted.ok === count && seen.count >= count,
    elapsedMs,
    rate: elapsedMs ? (count / elapsedMs) * 1000 : null,
    postRate: (posted.ok / (posted.lastAnsweredAt - posted.firstSentAt)) * 1000,
    cpuMs: { server: serverCpuMs, clients: clientsCpuMs, receiver: receiverCpuMs },
    machine,
    timeline,
    rest: `the bench process (the posting clients) ${perItem(clientsCpuMs, count, "post")}, the receiver ${perItem(receiverCpuMs, count, "request")}; ${machine.text}; ${machineIdle}`,
  };
}

function detailsOf(m: Measured) {
  return {
    elapsedMs: m.elapsedMs,
    rate: m.rate,
    postRate: m.postRate,
    machine: m.machine,
    timeline: m.timeline,
    accept: latencySummary(m.posted.latencies),
    received: m.seen,
  };
}

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
