/**
 * Clients posting messages to hookline's API, one request per message: a closed loop (N clients,
 * each posting as soon as its previous answer came back) and an open loop (a fixed arrival rate,
 * latency measured from each request's scheduled time so a stall is not hidden).
 */
import { Pool } from "undici";
import { ADMIN_TOKEN } from "./hookline.js";
import { wallNow } from "./stats.js";

export interface PostResult {
  /** Answers with a 2xx status. */
  ok: number;
  errors: number;
  /** Per-request latency in ms (2xx answers only), in completion order. */
  latencies: Float64Array;
  /** Ids of the accepted messages, when asked for. */
  ids: string[];
  /** Wall-clock ms of the first request sent and of the last answer received. */
  firstSentAt: number;
  lastAnsweredAt: number;
  firstError: string | null;
}

export interface LoadTarget {
  url: string;
  appId: string;
  /** The message body of the i-th post. */
  body?: (i: number) => string;
  keepIds?: boolean;
}

/** The message the clients post: a small JSON event like the backlog's payloads. */
export function messageBody(i: number): string {
  return JSON.stringify({
    eventType: "invoice.paid",
    payload: {
      type: "invoice.paid",
      data: {
        invoice: `in_${1_000_000 + i}`,
        customer: `cus_${(i * 7919) % 100_000}`,
        amount: 4200 + (i % 1000),
        currency: "eur",
        status: "paid",
        lines: [{ sku: "plan-pro", quantity: 1, unitAmount: 4200 }],
        paidAt: "2025-01-01T12:00:00Z",
      },
    },
  });
}

/** Keep-alive connections to hookline, one request at a time on each. */
export function clientPool(url: string, connections: number): Pool {
  return new Pool(url, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
}

class Poster {
  readonly pool: Pool;
  readonly path: string;
  readonly headers = {
    authorization: `Bearer ${ADMIN_TOKEN}`,
    "content-type": "application/json",
  };
  ok = 0;
  errors = 0;
  firstError: string | null = null;
  latencies: number[] = [];
  ids: string[] = [];

  constructor(
    readonly target: LoadTarget,
    connections: number,
    pool?: Pool,
  ) {
    this.pool = pool ?? clientPool(target.url, connections);
    this.path = `/api/v1/app/${target.appId}/msg`;
  }

  /** Posts message i; `since` is when its latency starts counting. */
  async post(i: number, since: number): Promise<void> {
    try {
      const res = await this.pool.request({
        method: "POST",
        path: this.path,
        headers: this.headers,
        body: (this.target.body ?? messageBody)(i),
      });
      const text = await res.body.text();
      const at = wallNow();
      if (res.statusCode >= 200 && res.statusCode < 300) {
        this.ok++;
        this.latencies.push(at - since);
        if (this.target.keepIds) this.ids.push((JSON.parse(text) as { id: string }).id);
      } else {
        this.errors++;
        this.firstError ??= `HTTP ${res.statusCode}: ${text.slice(0, 200)}`;
      }
    } catch (err) {
      this.errors++;
      this.firstError ??= String(err);
    }
  }

  result(firstSentAt: number, lastAnsweredAt: number): PostResult {
    return {
      ok: this.ok,
      errors: this.errors,
      latencies: Float64Array.from(this.latencies),
      ids: this.ids,
      firstSentAt,
      lastAnsweredAt,
      firstError: this.firstError,
    };
  }
}

/**
 * `clients` concurrent clients post until `count` messages are sent or `durationMs` has passed,
 * whichever comes first.
 */
export async function closedLoop(
  target: LoadTarget,
  options: { clients: number; count?: number; durationMs?: number; startIndex?: number },
): Promise<PostResult> {
  const poster = new Poster(target, options.clients);
  const count = options.count ?? Number.POSITIVE_INFINITY;
  const start = wallNow();
  const deadline =
    options.durationMs === undefined ? Number.POSITIVE_INFINITY : start + options.durationMs;
  let next = options.startIndex ?? 0;
  const end = (options.startIndex ?? 0) + count;
  let last = start;
  const worker = async () => {
    while (next < end && wallNow() < deadline) {
      const i = next++;
      await poster.post(i, wallNow());
      last = wallNow();
    }
  };
  await Promise.all(Array.from({ length: options.clients }, worker));
  await poster.pool.close();
  return poster.result(start, last);
}

/**
 * Posts at a fixed `rate` (messages per second) for `durationMs`, with up to `connections`
 * requests outstanding. Latency counts from each message's scheduled send time, so a stall of
 * hookline's is not hidden by the generator waiting for it; `sentLate` says how late the
 * generator itself sent each one (its own event loop busy, or short of CPU), which that latency
 * includes.
 */
export async function openLoop(
  target: LoadTarget,
  options: {
    rate: number;
    durationMs: number;
    connections: number;
    startIndex?: number;
    /** Connections opened by an earlier run (a warm-up), left open; else new ones, closed after. */
    pool?: Pool;
  },
): Promise<PostResult & { behindMs: number; sentLate: Float64Array; slowWindows: string[] }> {
  const poster = new Poster(target, options.connections, options.pool);
  const total = Math.round((options.rate * options.durationMs) / 1000);
  const interval = 1000 / options.rate;
  const start = wallNow();
  const inFlight = new Set<Promise<void>>();
  let sent = 0;
  let behindMs = 0;
  const sentLate = new Float64Array(total);
  let last = start;
  // The slowest answer per 100 ms of schedule, to tell one long stall from a spread-out tail.
  const windowMax = new Float64Array(Math.ceil(options.durationMs / 100) + 1);
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = wallNow();
      while (sent < total && start + sent * interval <= now) {
        const scheduled = start + sent * interval;
        const window = Math.floor((sent * interval) / 100);
        sentLate[sent] = now - scheduled;
        behindMs = Math.max(behindMs, now - scheduled);
        const p = poster.post((options.startIndex ?? 0) + sent, scheduled).finally(() => {
          inFlight.delete(p);
          last = wallNow();
          windowMax[window] = Math.max(windowMax[window]!, last - scheduled);
        });
        inFlight.add(p);
        sent++;
      }
      if (sent < total) setTimeout(tick, 1);
      else resolve();
    };
    tick();
  });
  await Promise.all(inFlight);
  if (!options.pool) await poster.pool.close();
  const slowWindows = [...windowMax]
    .map((ms, w) => ({ ms, w }))
    .filter((x) => x.ms > 20)
    .map((x) => `${x.w * 100} ms: ${x.ms.toFixed(0)} ms`);
  return { ...poster.result(start, last), behindMs, sentLate, slowWindows };
}
