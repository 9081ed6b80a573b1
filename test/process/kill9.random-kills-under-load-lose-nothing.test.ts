/**
 * Crash durability under load: clients keep posting while hookline is killed with SIGKILL at
 * random moments (at least ten times) and restarted on the same store. Every message answered 2xx
 * must reach the receiver at least once (or be a dead letter); only deliveries in flight at a kill
 * may arrive twice. Runs on SQLite and on PostgreSQL. HOOKLINE_KILL_SEED replays a run.
 */
import { describe, expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { call, spawnHookline, stopAfter, TEST_TOKEN } from "../support/process.js";
import { Receiver } from "../support/receiver.js";

const KILLS = 10;
const CLIENTS = 8;
const LIMIT = 8;

/** A small seeded random source, so a failing run can be replayed. */
function seeded(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

describe.each([
  ["sqlite", () => ({ env: {}, cleanup: async () => {} })],
  [
    "postgres",
    () => {
      const schema = freshSchemaName();
      return {
        env: {
          DATABASE_URL: TEST_DATABASE_URL,
          HOOKLINE_PG_SCHEMA: schema,
          // A killed worker's claims come back once its heartbeat is this old: kept short here
          // so ten kills fit in the test.
          HOOKLINE_WORKER_HEARTBEAT_MS: "200",
          HOOKLINE_WORKER_DEAD_AFTER_MS: "1000",
        },
        cleanup: () => dropSchema(schema),
      };
    },
  ],
])("hookline on %s killed with SIGKILL again and again under load", (name, storeFor) => {
  const cleanup = useCleanup();

  it("delivers every accepted message at least once; duplicates only from deliveries in flight", async () => {
    const seed = Number(process.env.HOOKLINE_KILL_SEED ?? Date.now() % 1_000_000);
    const random = seeded(seed);
    const dir = tempDir(cleanup, `hookline-kills-${name}-`);
    const store = storeFor();
    cleanup.push(store.cleanup);
    // A little work per request, so deliveries are in flight when the kills come.
    const rx = await Receiver.start(() => ({ status: 200, delayMs: Math.floor(random() * 10) }));
    cleanup.push(() => rx.close());
    const start = async () => stopAfter(cleanup, await spawnHookline(dir, store.env), "SIGKILL");
    let proc = await start();
    await call(proc.url, "POST", "/api/v1/app", { name: "acme", uid: "acme" });
    await call(proc.url, "POST", "/api/v1/app/acme/endpoint", {
      url: rx.url("/hook"),
      uid: "main",
      deliveryPolicy: { concurrencyLimit: LIMIT },
    });

    const accepted = new Set<string>();
    const killedAt: number[] = [];
    let posting = true;
    let url: string | null = proc.url;
    let restarted: Promise<void> = Promise.resolve();
    const post = async () => {
      let n = 0;
      while (posting) {
        if (url === null) {
          await restarted;
          continue;
        }
        try {
          const res = await fetch(`${url}/api/v1/app/acme/msg`, {
            method: "POST",
            headers: { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json" },
            body: JSON.stringify({ eventType: "order.paid", payload: { n: n++ } }),
          });
          const body = (await res.json()) as { id?: string };
          if (res.status === 202 && body.id) accepted.add(body.id);
        } catch {
          // Killed mid-request: not answered, so not accepted (it may still be delivered).
        }
      }
    };
    const clients = Array.from({ length: CLIENTS }, post);

    for (let kill = 0; kill < KILLS; kill++) {
      // A random moment: after a random number of further messages have been accepted.
      const target = accepted.size + 100 + Math.floor(random() * 300);
      while (accepted.size < target) await new Promise((r) => setTimeout(r, 5));
      let done!: () => void;
      restarted = new Promise((r) => (done = r));
      url = null;
      proc.child.kill("SIGKILL");
      await proc.exited;
      // Every request that reached the receiver so far was sent by a process now dead.
      killedAt.push(rx.requests.length);
      proc = await start();
      url = proc.url;
      done();
    }
    posting = false;
    await Promise.all(clients);

    // Every accepted message arrives (none are failed here, so none should be dead letters).
    const counts = new Map<string, number>();
    const count = () => {
      counts.clear();
      for (const r of rx.requests) {
        const id = r.headers["webhook-id"]!;
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
    };
    const missing = () => [...accepted].filter((id) => !counts.has(id));
    for (count(); missing().length > 0; count()) await new Promise((r) => setTimeout(r, 50));
    const dead = await call<{ data: unknown[] }>(proc.url, "GET", "/api/v1/dlq");
    expect(missing()).toEqual([]);
    expect(dead.body.data).toEqual([]);

    const duplicates = [...counts.values()].reduce((sum, c) => sum + c - 1, 0);
    console.log(
      `${name}: seed ${seed}, ${KILLS} kills, ${accepted.size} accepted, ` +
        `${rx.requests.length} deliveries, ${duplicates} duplicates, ` +
        `${counts.size - accepted.size} delivered whose answer was lost in a kill`,
    );
    // Only a delivery in flight at a kill (sent, its outcome not yet committed) may come again:
    // so no message reaches the receiver twice from the same process.
    const lifeOf = (index: number) => killedAt.filter((k) => k <= index).length;
    const lives = new Map<string, number[]>();
    rx.requests.forEach((r, i) => {
      const id = r.headers["webhook-id"]!;
      lives.set(id, [...(lives.get(id) ?? []), lifeOf(i)]);
    });
    const twiceInOneLife = [...lives].filter(([, l]) => new Set(l).size < l.length);
    expect(twiceInOneLife).toEqual([]);
    // In flight at a kill: up to LIMIT requests being sent, plus outcomes answered but not yet
    // committed (the outcome writer commits them in batches).
    expect(duplicates).toBeLessThanOrEqual(KILLS * 4 * LIMIT);
    // Ten restarts take about a minute; a machine busy with other work has taken over two.
  }, 240_000);
});
