/**
 * The cost of one claim on PostgreSQL as the backlog and the history grow, and while retention
 * prunes: `node --import tsx bench/pg-claim-cost.ts [--large N]`. Each step times claims of 256
 * deliveries by a registered worker (the statement the engine runs), through the store's port,
 * on a schema of its own that is dropped at the end. Prints a table; not part of `npm run bench`
 * because it needs minutes of data loading rather than a receiver.
 */
import pg from "pg";
import { PostgresStore } from "../src/store/postgres/store.js";
import { optionValue } from "./lib/args.js";
import { samplePayload } from "./lib/backlog.js";
import { benchApplication, benchEndpoint } from "./lib/catalogue-rows.js";

const URL = process.env.HOOKLINE_BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const LARGE = Number(optionValue(process.argv.slice(2), "--large") ?? 1_000_000);
if (!Number.isSafeInteger(LARGE) || LARGE < 1)
  throw new Error("--large takes a whole number from 1");
const SMALL = 10_000;
const ENDPOINTS = 20;
const BATCH = 256;
const CLAIMS = 30;
const DAY = 86_400_000;

const schema = `hl_claimcost_${process.pid}`;
const admin = new pg.Client({ connectionString: URL });

async function main(): Promise<void> {
  await admin.connect();
  const store = await PostgresStore.open({ connectionString: URL, schema, poolSize: 4 });
  try {
    const now = Date.now();
    const app = await store.createApplication(benchApplication("app_claimcost", "claim cost", now));
    const endpointIds: string[] = [];
    for (let i = 0; i < ENDPOINTS; i++) {
      const id = `ep_claimcost${String(i).padStart(4, "0")}`;
      const ep = await store.createEndpoint(
        benchEndpoint(id, app.id, "https://receiver.example/hook", now),
      );
      endpointIds.push(ep.id);
    }
    await store.coordination.register({ id: "wkr_bench", role: "worker", host: "bench", now });
    const rows: string[][] = [];
    const row = (label: string, ms: number[]) => {
      ms.sort((a, b) => a - b);
      const p = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!.toFixed(2);
      rows.push([label, p(0.5), p(0.95), String(ms.length)]);
      console.log(`${label}: p50 ${p(0.5)} ms, p95 ${p(0.95)} ms`);
    };
    let seq = 0;
    const add = async (count: number, state: string, at: number) => {
      const from = seq + 1;
      seq += count;
      await admin.query(
        `INSERT INTO ${schema}.messages (id, app_id, event_type, payload, created_at)
         SELECT 'msg_cc' || lpad(g::text, 10, '0'), $1, 'invoice.paid', $2::bytea, $3::bigint
         FROM generate_series($4::int, $5::int) g`,
        [app.id, samplePayload(1), at, from, seq],
      );
      await admin.query(
        `INSERT INTO ${schema}.deliveries (id, app_id, message_id, endpoint_id, state, origin,
           next_attempt_at, attempt_count, created_at)
         SELECT 'dlv_cc' || lpad(g::text, 10, '0'), $1, 'msg_cc' || lpad(g::text, 10, '0'),
           ($2::text[])[1 + g % cardinality($2::text[])], $3, 'message',
           CASE WHEN $3 = 'pending' THEN $4::bigint + g % 1000 END,
           CASE WHEN $3 = 'pending' THEN 0 ELSE 1 END, $4::bigint
         FROM generate_series($5::int, $6::int) g`,
        [app.id, endpointIds, state, at, from, seq],
      );
      if (state !== "pending") {
        await admin.query(
          `INSERT INTO ${schema}.attempts (id, delivery_id, app_id, message_id, endpoint_id, at,
             trigger, url, status, duration_ms, response_snippet, outcome)
           SELECT 'atmpt_cc' || lpad(g::text, 10, '0'), 'dlv_cc' || lpad(g::text, 10, '0'), $1,
             'msg_cc' || lpad(g::text, 10, '0'), ($2::text[])[1 + g % cardinality($2::text[])],
             $3::bigint, 'first', 'https://receiver.example/hook', 200, 12, 'ok', 'success'
           FROM generate_series($4::int, $5::int) g`,
          [app.id, endpointIds, at, from, seq],
        );
      }
      await admin.query(`ANALYZE ${schema}.deliveries`);
    };
    /** Claims CLAIMS batches, timing each, then puts them back so the backlog stays the same. */
    const claims = async (label: string, during?: () => Promise<void>) => {
      const ms: number[] = [];
      const ids: string[] = [];
      let busy = true;
      const background = during
        ? (async () => {
            while (busy) await during();
          })()
        : null;
      for (let i = 0; i < CLAIMS; i++) {
        const t = Date.now();
        const t0 = performance.now();
        const got = await store.claimDue({
          now: t + DAY,
          limit: BATCH,
          excludeEndpoints: [],
          leaseUntil: t + 60_000,
          worker: { id: "wkr_bench", deadBefore: t - 10_000, onContended: () => {} },
        });
        ms.push(performance.now() - t0);
        ids.push(...got.map((d) => d.id));
      }
      busy = false;
      await background;
      await store.releaseDeliveries(ids.map((deliveryId) => ({ deliveryId, at: Date.now() })));
      row(label, ms);
    };

    await add(SMALL, "pending", now);
    await claims(`${SMALL.toLocaleString("en")} pending, no history`);
    await add(LARGE - SMALL, "pending", now);
    await claims(`${LARGE.toLocaleString("en")} pending, no history`);
    // History: delivered long ago, with its attempts; retention will prune it.
    await add(LARGE, "succeeded", now - 40 * DAY);
    await claims(`${LARGE.toLocaleString("en")} pending + ${LARGE.toLocaleString("en")} delivered`);
    let pruned = 0;
    await claims("same, while retention prunes (batches of 500)", async () => {
      const r = await store.pruneExpired({
        now: Date.now(),
        retentionMs: 30 * DAY,
        batchSize: 500,
      });
      pruned += r.messages;
    });
    console.log(`retention pruned ${pruned} messages meanwhile`);
    console.log("\n| backlog and history | claim p50 (ms) | claim p95 (ms) | claims |");
    console.log("|---|---|---|---|");
    for (const r of rows) console.log(`| ${r.join(" | ")} |`);
  } finally {
    await store.close();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
}

await main();
