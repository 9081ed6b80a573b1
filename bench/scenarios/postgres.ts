/**
 * 2. Delivery from a backlog on PostgreSQL, with one and with two worker processes: an API
 * process creates the application and its endpoints, the backlog is written straight into the
 * schema in the adapter's row shapes (one INSERT … SELECT per table), then the workers start and
 * drain it. Several endpoints, because one endpoint is sent to by one worker at a time (see
 * docs/architecture.md, "Several processes"): a second worker helps when there are endpoints to
 * share.
 */
import { join } from "node:path";
import pg from "pg";
import { samplePayload } from "../lib/backlog.js";
import { DelayProxy } from "../lib/delay-proxy.js";
import { HooklineProcess, freshDataDir, removeDataDir } from "../lib/hookline.js";
import {
  cpuByCommand,
  cpuSince,
  idleBetween,
  machineShare,
  readCpuTotals,
} from "../lib/machine.js";
import { DATABASE_COMMAND } from "../lib/process-table.js";
import { vsCeiling, type BenchContext, type Figure } from "../lib/scenario.js";
import { rateBetween } from "../lib/stats.js";

/** The database the bench uses: HOOKLINE_BENCH_DATABASE_URL, or the local `test` database. */
const DATABASE_URL =
  process.env.HOOKLINE_BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const ENDPOINTS = 8;

/** A round of the drain: how many workers, and how far away the database is. */
interface Round {
  workers: number;
  /** Held per chunk in each direction by a proxy between hookline and PostgreSQL. */
  delayMs: number;
}

const ROUNDS: Round[] = [
  { workers: 1, delayMs: 0 },
  { workers: 2, delayMs: 0 },
  // Not a target: what a database on another machine costs, where every statement is a round
  // trip of its own (architecture.md, steps 1 and 4).
  { workers: 2, delayMs: 1 },
];

/**
 * Runs the drain with 1 and with 2 workers, then 2 with the database 1 ms away; a figure each,
 * each after a ceiling of its own (the one after the last round is the scenario's).
 */
export async function postgresDrain(
  ctx: BenchContext,
  count: number,
  after: string,
): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const round of ROUNDS) {
    const { workers, delayMs } = round;
    const target = workers === 2 && delayMs === 0 ? 0.5 : null;
    const who = `${workers} worker process${workers > 1 ? "es" : ""}`;
    const where = delayMs ? `, the database ${delayMs} ms away` : "";
    const ceilingAt = await ctx.ceiling(after);
    after = `after PostgreSQL, ${who}${where}`;
    try {
      const r = await ctx.usingDatabase(() => drainWith(ctx, count, round));
      figures.push(
        vsCeiling(
          {
            scenario: "2 drain",
            figure: `PostgreSQL, ${who}${where}: ${count.toLocaleString("en")} pending → ${ENDPOINTS} endpoints`,
            value: r.rate,
            unit: "deliveries/s",
            valid: r.verified,
            ceilingAt,
            note: r.verified
              ? `all ${count} succeeded and recorded; workers' CPU ${r.cpuNote}` +
                (delayMs
                  ? `; through a proxy in the bench's process holding each chunk ${delayMs} ms each way`
                  : "")
              : `only ${r.succeeded}/${count} succeeded`,
          },
          target,
        ),
      );
    } catch (err) {
      figures.push({
        scenario: "2 drain",
        figure: `PostgreSQL, ${who}${where}`,
        value: null,
        unit: "deliveries/s",
        ratio: null,
        pass: target === null ? null : false,
        target: target === null ? undefined : "≥ 0.50 × ceiling",
        note: `failed: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`,
      });
    }
  }
  return figures;
}

async function drainWith(ctx: BenchContext, count: number, { workers, delayMs }: Round) {
  const label = `${workers}${delayMs ? `_far${delayMs}` : ""}`;
  const schema = `hl_bench_${process.pid}_${label}`;
  const group = `pgdrain${label}`;
  // The backlog is written and checked directly; only hookline's processes go through the proxy.
  const direct = new URL(DATABASE_URL);
  const proxy = delayMs
    ? await DelayProxy.start({ host: direct.hostname, port: Number(direct.port || 5432) }, delayMs)
    : null;
  const throughProxy = new URL(DATABASE_URL);
  if (proxy) {
    throughProxy.hostname = "127.0.0.1";
    throughProxy.port = String(proxy.port);
  }
  const env = { DATABASE_URL: throughProxy.toString(), HOOKLINE_PG_SCHEMA: schema };
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  const dirs: string[] = [];
  const procs: HooklineProcess[] = [];
  try {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    const apiDir = freshDataDir("pg-api");
    dirs.push(apiDir);
    const api = await HooklineProcess.start({ dataDir: apiDir, env, role: "api" });
    procs.push(api);
    const appId = await api.api.createApp(`bench-pg-${workers}`);
    const endpointIds: string[] = [];
    for (let i = 0; i < ENDPOINTS; i++) {
      endpointIds.push(
        await api.api.createEndpoint(appId, { url: `${ctx.receiver.url}/${group}/${i}` }),
      );
    }
    await writePgBacklog(admin, schema, appId, endpointIds, count);
    ctx.log(
      `  PostgreSQL backlog of ${count} written; draining with ${workers} worker(s)${delayMs ? `, the database ${delayMs} ms away` : ""}`,
    );
    const ws = await Promise.all(
      Array.from({ length: workers }, () => {
        const dir = freshDataDir("pg-worker");
        dirs.push(dir);
        // With --profile, each worker writes its profile (the API process does nothing here).
        const profileDir = ctx.profileDir ? join(ctx.profileDir, `pg-${label}-workers`) : null;
        return HooklineProcess.start({ dataDir: dir, env, role: "worker", profileDir });
      }),
    );
    procs.push(...ws);
    const cpu0 = ws.map((w) => w.cpuMs() ?? 0);
    const server0 = cpuByCommand(DATABASE_COMMAND);
    const receiver0 = ctx.receiver.cpuMs() ?? 0;
    const bench0 = process.cpuUsage();
    const started = performance.now();
    const totals0 = readCpuTotals();
    await ctx.receiver.waitFor(group, count, 300_000);
    const machineIdle = idleBetween(totals0, readCpuTotals());
    const cpu = ws.map((w, i) => (w.cpuMs() ?? 0) - cpu0[i]!);
    // The whole path: the workers, the database server, the receiver and this process (the far
    // round's proxy); the server's processes are read from /proc, so it must run on this machine.
    const serverMs = cpuSince(DATABASE_COMMAND, server0);
    const receiverMs = (ctx.receiver.cpuMs() ?? 0) - receiver0;
    const benchUs = process.cpuUsage(bench0);
    const benchMs = (benchUs.user + benchUs.system) / 1000;
    const machine = machineShare(
      cpu.reduce((a, b) => a + b, 0) + serverMs + receiverMs + benchMs,
      count,
      performance.now() - started,
      "delivery",
    );
    const record = await ctx.receiver.record(group);
    const rate = rateBetween(record.times, 0, record.count - 1);
    for (const p of procs) await p.stop("SIGTERM");
    procs.length = 0;
    const done = await admin.query(
      `SELECT count(*) FILTER (WHERE state = 'succeeded') AS ok,
        (SELECT count(*) FROM ${schema}.attempts) AS attempts FROM ${schema}.deliveries`,
    );
    const succeeded = Number(done.rows[0].ok);
    const verified = succeeded === count && Number(done.rows[0].attempts) === count;
    const per = (ms: number) => `${Math.round((ms * 1000) / count)} µs`;
    // No PostgreSQL process here: the database runs elsewhere, and the machine's share is unknown.
    const wholePath =
      server0.size === 0
        ? "; PostgreSQL's CPU not seen (not on this machine)"
        : `; PostgreSQL ${per(serverMs)}, the receiver ${per(receiverMs)}, the bench process ` +
          `${per(benchMs)}${delayMs ? " (the proxy)" : ""}; ${machine.text}; ${machineIdle}`;
    const cpuNote = `${cpu.map(per).join(" + ")}/delivery${wholePath}`;
    return { rate, verified, succeeded, cpuNote };
  } finally {
    for (const p of procs) await p.stop("SIGKILL");
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await admin.end();
    await proxy?.close();
    for (const d of dirs) removeDataDir(d);
  }
}

/** Messages and their deliveries, round-robin over the endpoints, all due now. */
async function writePgBacklog(
  c: pg.Client,
  schema: string,
  appId: string,
  endpointIds: string[],
  count: number,
): Promise<void> {
  const now = Date.now();
  await c.query("BEGIN");
  await c.query(
    `INSERT INTO ${schema}.messages (id, app_id, event_type, payload, created_at)
     SELECT 'msg_bench' || lpad(g::text, 10, '0'), $1, 'invoice.paid', $2::bytea, $3::bigint
     FROM generate_series(1, $4) g`,
    [appId, samplePayload(1), now, count],
  );
  await c.query(
    `INSERT INTO ${schema}.deliveries
       (id, app_id, message_id, endpoint_id, state, origin, next_attempt_at, created_at)
     SELECT 'dlv_bench' || lpad(g::text, 10, '0'), $1, 'msg_bench' || lpad(g::text, 10, '0'),
       ($2::text[])[1 + g % cardinality($2::text[])], 'pending', 'message', $3::bigint + g / 1000, $3::bigint
     FROM generate_series(1, $4) g`,
    [appId, endpointIds, now, count],
  );
  await c.query("COMMIT");
  await c.query(`ANALYZE ${schema}.deliveries`);
  await c.query(`ANALYZE ${schema}.messages`);
}
