/**
 * Several hookline processes on one PostgreSQL: an API process and three workers, all real child
 * processes, one real receiver. The endpoints' concurrency limits hold across the workers, the
 * work is shared, and a worker killed with SIGKILL loses nothing.
 */
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { adminQuery, dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { call, spawnHookline, stopAfter, type HooklineProcess } from "../support/process.js";
import { Receiver } from "../support/receiver.js";

const LIMIT = 5;
const ENDPOINTS = ["a", "b", "c", "d"];

describe("an API process and three workers sharing PostgreSQL", () => {
  const cleanup = useCleanup();
  let dir: string;
  let schema: string;
  let rx: Receiver;
  let env: Record<string, string>;

  beforeEach(async () => {
    dir = tempDir(cleanup, "hookline-fleet-");
    schema = freshSchemaName();
    cleanup.push(() => dropSchema(schema));
    env = {
      DATABASE_URL: TEST_DATABASE_URL,
      HOOKLINE_PG_SCHEMA: schema,
      // Short, so handing work over and declaring a killed worker dead fit in a test.
      HOOKLINE_WORKER_HEARTBEAT_MS: "200",
      HOOKLINE_WORKER_DEAD_AFTER_MS: "1500",
    };
    rx = await Receiver.start(() => ({ status: 200, delayMs: 40 }));
    cleanup.push(() => rx.close());
  });

  /** A hookline process of this fleet, killed with SIGKILL after the test. */
  const member = async (name: string, role: "api" | "worker") =>
    stopAfter(cleanup, await spawnHookline(join(dir, name), env, role), "SIGKILL");

  /** The API first (it migrates), then the workers. */
  async function startFleet(
    n: number,
  ): Promise<{ api: HooklineProcess; workers: HooklineProcess[] }> {
    const api = await member("api", "api");
    const workers: HooklineProcess[] = [];
    for (let i = 0; i < n; i++) workers.push(await member(`worker-${i}`, "worker"));
    await call(api.url, "POST", "/api/v1/app", { name: "acme", uid: "acme" });
    for (const name of ENDPOINTS) {
      const res = await call(api.url, "POST", "/api/v1/app/acme/endpoint", {
        url: rx.url(`/${name}`),
        uid: name,
        deliveryPolicy: { concurrencyLimit: LIMIT },
      });
      expect(res.status).toBe(201);
    }
    return { api, workers };
  }

  async function post(api: HooklineProcess, n: number, from = 0): Promise<string[]> {
    const ids: string[] = [];
    for (let i = from; i < from + n; i++) {
      const res = await call<{ id: string }>(api.url, "POST", "/api/v1/app/acme/msg", {
        eventType: "order.paid",
        payload: { i },
      });
      expect(res.status).toBe(202);
      ids.push(res.body.id);
    }
    return ids;
  }

  /** Distinct message ids the receiver got on one endpoint's path. */
  const deliveredTo = (path: string) =>
    new Set(rx.requests.filter((r) => r.path === path).map((r) => r.headers["webhook-id"]));

  async function everyMessageDelivered(ids: string[]): Promise<void> {
    for (const name of ENDPOINTS) {
      await expect
        .poll(() => deliveredTo(`/${name}`).size, { timeout: 60_000, interval: 100 })
        .toBe(ids.length);
    }
  }

  it("never exceeds an endpoint's limit across workers, and more than one worker delivers", async () => {
    const { api } = await startFleet(3);
    const owners = new Set<string>();
    let watching = true;
    // Which workers own endpoints, sampled while the work runs.
    const watch = (async () => {
      while (watching) {
        const rows = await adminQuery(`SELECT worker_id FROM ${schema}.endpoint_owners`);
        for (const r of rows) owners.add(String(r.worker_id));
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const ids = await post(api, 150);
    await everyMessageDelivered(ids);
    watching = false;
    await watch;
    for (const name of ENDPOINTS) expect(rx.maxConcurrentOn(`/${name}`)).toBeLessThanOrEqual(LIMIT);
    expect(owners.size).toBeGreaterThan(1);
  }, 90_000);

  it("loses nothing when a worker is killed with SIGKILL; only what it had in flight repeats", async () => {
    const { api, workers } = await startFleet(3);
    const ids = await post(api, 100);
    await rx.waitFor(80);
    const victim = workers[0]!;
    victim.child.kill("SIGKILL");
    await victim.exited;
    ids.push(...(await post(api, 50, 100)));
    await everyMessageDelivered(ids);
    const duplicates = rx.requests.length - ENDPOINTS.length * ids.length;
    // What one worker can have in flight: its endpoints' limits (at most all of them).
    expect(duplicates).toBeLessThanOrEqual(ENDPOINTS.length * LIMIT);
    console.info(`fleet SIGKILL: ${duplicates} duplicate deliveries of ${rx.requests.length}`);
    for (const name of ENDPOINTS) expect(rx.maxConcurrentOn(`/${name}`)).toBeLessThanOrEqual(LIMIT);
    // Four processes start and one dies and is declared dead: on a busy machine, more than 30 s.
  }, 90_000);

  it("answers a replay asked of the API process with the outcome a worker recorded", async () => {
    const { api } = await startFleet(2);
    // No retries: a failed delivery is dead-lettered at once.
    const ep = await call<{ id: string }>(api.url, "POST", "/api/v1/app/acme/endpoint", {
      url: rx.url("/replayed"),
      deliveryPolicy: { retry: { preset: "manual" } },
    });
    rx.behave((req) => ({ status: req.path === "/replayed" ? 500 : 200 }));
    await post(api, 1);
    let recordId = "";
    await expect
      .poll(
        async () => {
          const list = await call<{ data: { id: string }[] }>(
            api.url,
            "GET",
            `/api/v1/dlq?endpoint_id=${ep.body.id}`,
          );
          recordId = list.body.data[0]?.id ?? "";
          return recordId;
        },
        { timeout: 30_000, interval: 100 },
      )
      .not.toBe("");
    rx.behave(() => ({ status: 200 }));
    const replay = await call<{
      result: string;
      attempt: { status: number; trigger: string } | null;
    }>(api.url, "POST", `/api/v1/dlq/${recordId}/replay`, { note: "receiver fixed" });
    expect(replay.status).toBe(200);
    expect(replay.body.result).toBe("succeeded");
    expect(replay.body.attempt).toMatchObject({ status: 200, trigger: "replay" });
  });
});
