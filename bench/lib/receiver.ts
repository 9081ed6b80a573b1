/**
 * The webhook receiver the benchmark sends to, run as its own child process (see
 * receiver-client.ts). Plain node:http with keep-alive, answering 200 at once unless told
 * otherwise. Requests are grouped by the first path segment (`/drain`, `/many/17` → `many`); per
 * group it keeps the arrival times (high-resolution wall clock, ms) and, when asked, the
 * `webhook-id` of each request. It is driven over IPC: set a group's rule, read or reset its
 * record, wait for a count.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

/** How the receiver answers one group's requests. */
export interface ReceiverRule {
  /** Answer after this long (ms). */
  delayMs?: number;
  /** Status used for failures (default 503). */
  failStatus?: number;
  /** Fail every request while true. */
  failing?: boolean;
  /** Fail the first request seen for each `webhook-id`, answer the later ones normally. */
  failFirstPerId?: boolean;
  /** Keep each request's `webhook-id` next to its arrival time. */
  recordIds?: boolean;
}

/** What the bench asks, and what comes back (`reply` echoes `seq`). */
export type ReceiverCommand =
  | { seq: number; cmd: "listen" }
  | { seq: number; cmd: "rule"; group: string; rule: ReceiverRule }
  | { seq: number; cmd: "reset" }
  | { seq: number; cmd: "stats"; group: string }
  | { seq: number; cmd: "record"; group: string }
  | { seq: number; cmd: "waitFor"; group: string; count: number; timeoutMs: number };

export interface GroupStats {
  count: number;
  failed: number;
  first: number | null;
  last: number | null;
}

export interface GroupRecord extends GroupStats {
  times: Float64Array;
  ids: string[] | null;
}

class Group {
  count = 0;
  failed = 0;
  times = new Float64Array(1024);
  ids: string[] | null = null;
  seen: Set<string> | null = null;
  waiters: { count: number; done: () => void }[] = [];

  constructor(public rule: ReceiverRule) {
    this.applyRule(rule);
  }

  applyRule(rule: ReceiverRule): void {
    this.rule = rule;
    if (rule.recordIds && !this.ids) this.ids = [];
    if (rule.failFirstPerId && !this.seen) this.seen = new Set();
  }

  arrive(at: number, id: string | undefined): boolean {
    if (this.count === this.times.length) {
      const bigger = new Float64Array(this.times.length * 2);
      bigger.set(this.times);
      this.times = bigger;
    }
    this.times[this.count++] = at;
    if (this.ids) this.ids.push(id ?? "");
    let fail = this.rule.failing === true;
    if (this.seen && id !== undefined && !this.seen.has(id)) {
      this.seen.add(id);
      fail = true;
    }
    if (fail) this.failed++;
    if (this.waiters.length) {
      this.waiters = this.waiters.filter((w) => {
        if (this.count < w.count) return true;
        w.done();
        return false;
      });
    }
    return fail;
  }

  stats(): GroupStats {
    return {
      count: this.count,
      failed: this.failed,
      first: this.count ? this.times[0]! : null,
      last: this.count ? this.times[this.count - 1]! : null,
    };
  }
}

const groups = new Map<string, Group>();
const rules = new Map<string, ReceiverRule>();

function groupOf(name: string): Group {
  let g = groups.get(name);
  if (!g) {
    g = new Group(rules.get(name) ?? {});
    groups.set(name, g);
  }
  return g;
}

const OK = Buffer.from("ok");
const FAIL = Buffer.from("no");

function handle(req: IncomingMessage, res: ServerResponse): void {
  const at = performance.timeOrigin + performance.now();
  const url = req.url ?? "/";
  let end = url.indexOf("/", 1);
  if (end === -1) end = url.indexOf("?");
  const name = url.slice(1, end === -1 ? url.length : end);
  const g = groupOf(name);
  const id = req.headers["webhook-id"];
  const fail = g.arrive(at, typeof id === "string" ? id : undefined);
  const status = fail ? (g.rule.failStatus ?? 503) : 200;
  const body = fail ? FAIL : OK;
  const answer = () => {
    res.writeHead(status, { "content-type": "text/plain", "content-length": body.length });
    res.end(body);
  };
  const delay = g.rule.delayMs ?? 0;
  req.on("end", () => (delay > 0 ? setTimeout(answer, delay) : answer()));
  req.resume();
}

const server = createServer({ keepAlive: true, requestTimeout: 0 }, handle);
server.keepAliveTimeout = 120_000;
server.headersTimeout = 60_000;
server.maxRequestsPerSocket = 0;

function reply(seq: number, result: unknown): void {
  process.send?.({ seq, result });
}

process.on("message", (m: ReceiverCommand) => {
  switch (m.cmd) {
    case "listen":
      server.listen(0, "127.0.0.1", () => {
        const address = server.address();
        reply(m.seq, typeof address === "object" && address ? address.port : 0);
      });
      return;
    case "rule": {
      rules.set(m.group, m.rule);
      groups.get(m.group)?.applyRule(m.rule);
      reply(m.seq, true);
      return;
    }
    case "reset":
      groups.clear();
      rules.clear();
      reply(m.seq, true);
      return;
    case "stats":
      reply(m.seq, groupOf(m.group).stats());
      return;
    case "record": {
      const g = groupOf(m.group);
      const out: GroupRecord = { ...g.stats(), times: g.times.slice(0, g.count), ids: g.ids };
      reply(m.seq, out);
      return;
    }
    case "waitFor": {
      const g = groupOf(m.group);
      if (g.count >= m.count) {
        reply(m.seq, g.stats());
        return;
      }
      const timer = setTimeout(() => {
        g.waiters = g.waiters.filter((w) => w !== waiter);
        reply(m.seq, g.stats());
      }, m.timeoutMs);
      const waiter = {
        count: m.count,
        done: () => {
          clearTimeout(timer);
          reply(m.seq, g.stats());
        },
      };
      g.waiters.push(waiter);
      return;
    }
  }
});

process.on("disconnect", () => process.exit(0));
