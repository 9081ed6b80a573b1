/**
 * A `--role worker` process counts its own deliveries, so Prometheus must scrape it, and a service
 * manager must be able to probe it: it answers its health, readiness and `/metrics` on
 * HOOKLINE_PORT, and nothing else of the API (that is the API processes' work). Before, a worker
 * listened nowhere: in a fleet of API and worker processes the attempt and outcome counters were
 * never exported, and the shipped rate alerts could not fire. Its 404 for any other route says it
 * is a worker, so an operator who pointed a client at its port knows where to point it instead.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { call, postOneMessage, spawnHookline, stopAfter, TEST_TOKEN } from "../support/process.js";
import { Receiver } from "../support/receiver.js";

describe("a worker process", () => {
  const cleanup = useCleanup();

  it("serves its health, readiness and metrics, and no other route", async () => {
    const dir = tempDir(cleanup, "hookline-worker-http-");
    const schema = freshSchemaName();
    cleanup.push(() => dropSchema(schema));
    const rx = await Receiver.start();
    cleanup.push(() => rx.close());
    const env = { DATABASE_URL: TEST_DATABASE_URL, HOOKLINE_PG_SCHEMA: schema };
    const start = async (role: "api" | "worker") =>
      stopAfter(cleanup, await spawnHookline(join(dir, role), env, role), "SIGKILL");
    const api = await start("api");
    const worker = await start("worker");
    const url = /Health:\s+(http:\/\/\S+)\/api\/v1\/health/.exec(worker.output())?.[1];
    expect(url, worker.output()).toBeDefined();

    await postOneMessage(api.url, rx.url("/hook"));
    await rx.waitFor(1);

    expect((await fetch(`${url}/api/v1/health`)).status).toBe(204);
    const ready = await fetch(`${url}/api/v1/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ready: true });

    const auth = { authorization: `Bearer ${TEST_TOKEN}` };
    expect((await fetch(`${url}/metrics`)).status).toBe(401);
    // The worker made the attempt: its counter is only in this process. It counts once the answer
    // is recorded, a moment after the receiver saw the request; up to 20 s for a busy machine.
    let metrics = "";
    for (let i = 0; i < 200 && !/hookline_delivery_attempts_total\{[^}]*\} 1/.test(metrics); i++) {
      if (i) await new Promise((r) => setTimeout(r, 100));
      metrics = await (await fetch(`${url}/metrics`, { headers: auth })).text();
    }
    expect(metrics).toMatch(/hookline_delivery_attempts_total\{[^}]*class="2xx"[^}]*\} 1/);

    const listed = await call(url!, "GET", "/api/v1/app");
    expect(listed.status).toBe(404);
    // A CLI pointed at the worker's port says why it finds nothing there.
    expect(JSON.stringify(listed.body)).toContain("this is a --role worker process");
    expect((await call(url!, "POST", "/api/v1/app", { name: "x" })).status).toBe(404);
    expect((await fetch(`${url}/ui/`)).status).toBe(404);
  }, 60_000);
});
