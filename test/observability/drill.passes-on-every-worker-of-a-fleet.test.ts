/**
 * Failure drills with several workers on one PostgreSQL. A drill's receiver listens on its own
 * process's loopback, but any worker could own the drill endpoint: a drill run by a process that
 * did not own it failed at "retries fire", because the owner sent the attempts to its own loopback
 * (refused there, as the loopback exception is the drill process's alone), and two drills at once
 * pointed the one endpoint at each other's receivers. With scheduled drills every worker but one
 * failed its drills, and `drill_failing` fired for nothing. A drill now takes its endpoint for its
 * own worker while it runs (waiting for another that holds it), so drills pass on every worker,
 * one after another when they overlap.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { adminQuery, dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";

interface DrillOut {
  passed: boolean;
  steps: { name: string; passed: boolean; detail: string }[];
}

const schema = freshSchemaName();
const workers: TestHookline[] = [];
beforeAll(async () => {
  const env = {
    DATABASE_URL: TEST_DATABASE_URL,
    HOOKLINE_PG_SCHEMA: schema,
    // The protection on: only the drill's own process lets its receiver through.
    HOOKLINE_ALLOW_PRIVATE_TARGETS: "0",
    HOOKLINE_WORKER_HEARTBEAT_MS: "200",
    HOOKLINE_WORKER_DEAD_AFTER_MS: "2000",
  };
  for (let i = 0; i < 2; i++) workers.push(await startHookline({ env }));
});
afterAll(async () => {
  for (const w of workers) await w.stop();
  await dropSchema(schema);
});

const drill = async (w: TestHookline): Promise<DrillOut> => {
  const res = await w.api<DrillOut>("POST", "/api/v1/drill");
  expect(res.status).toBe(200);
  return res.body;
};
const failed = (run: DrillOut) => run.steps.filter((s) => !s.passed).map((s) => s.detail);
/** Owner rows of endpoints that no longer exist. */
const stale = () =>
  adminQuery(
    `SELECT o.endpoint_id FROM ${schema}.endpoint_owners o
     WHERE NOT EXISTS (SELECT 1 FROM ${schema}.endpoints e WHERE e.id = o.endpoint_id)`,
  );

describe("failure drills in a fleet", () => {
  it("pass on each worker, also when two run at once", { timeout: 90_000 }, async () => {
    const [a, b] = workers as [TestHookline, TestHookline];
    // The first drill makes the endpoint, and its worker owns it afterwards until it is idle.
    const first = await drill(a);
    expect(failed(first)).toEqual([]);
    // Both at once: one waits for the other's to end and for its worker to let the endpoint go.
    // The waiting one can take the first endpoint just after the other deleted it; it lets go
    // of it at once (at its next heartbeat), not when its own drill ends 10 s and more later.
    const seenSince = new Map<string, number>();
    let longest = 0;
    let running = true;
    const watching = (async () => {
      while (running) {
        const rows = (await stale()).map((r) => String(r.endpoint_id));
        for (const id of seenSince.keys()) if (!rows.includes(id)) seenSince.delete(id);
        for (const id of rows) {
          if (!seenSince.has(id)) seenSince.set(id, Date.now());
          longest = Math.max(longest, Date.now() - seenSince.get(id)!);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const [onA, onB] = await Promise.all([drill(a), drill(b)]).finally(() => (running = false));
    await watching;
    // Heartbeats are 200 ms apart; without the let-go the row stayed for the whole second drill.
    expect(longest).toBeLessThan(5_000);
    expect(failed(onA)).toEqual([]);
    expect(failed(onB)).toEqual([]);
    expect(onA.passed && onB.passed).toBe(true);
  });

  it("leaves no worker owning a drill endpoint that is gone", { timeout: 60_000 }, async () => {
    // Each drill deletes the last one's endpoint; whoever held it lets go of it, within the idle
    // time (10 s after its last attempt) and a heartbeat, so the fleet's count of owned endpoints
    // does not grow drill by drill. Waited for generously: a loaded machine stretches both.
    await expect.poll(stale, { timeout: 45_000, interval: 250 }).toEqual([]);
  });
});
