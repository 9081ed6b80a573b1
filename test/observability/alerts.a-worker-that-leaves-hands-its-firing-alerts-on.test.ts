/**
 * Alerts with several workers on one PostgreSQL. Each worker evaluates the rules and keeps its
 * own alert rows; a failed drill (a condition every worker reads from the database) makes each
 * fire its own `drill_failing`. A worker that leaves — stopped cleanly, or killed and never
 * restarted — must not leave its alert listed as firing for good: a worker that stays carries it
 * on (one alert for the condition), and it resolves, once, when the condition ends. Workers that
 * start together on a left-behind alert take it on once, so its resolution is announced once.
 *
 * The workers in this process tick their evaluators when the test says so (their own interval is
 * an hour); the killed worker is a real child process, evaluating every second.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AlertChanges } from "../../src/observability/alert-rules.js";
import { newId } from "../../src/ids.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { adminQuery, dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { spawnHookline, type HooklineProcess } from "../support/process.js";
import { Receiver } from "../support/receiver.js";

interface Alert {
  id: string;
  rule: string;
  resolvedAt: string | null;
  supersededBy: string | null;
}
type Alerts = { firing: Alert[]; resolved: Alert[] };

let schema = "";
let env: Record<string, string> = {};
const workers: TestHookline[] = [];
const children: HooklineProcess[] = [];
const dirs: string[] = [];
/** What each worker in this process announced: alert ids that fired and resolved. */
const fired: string[] = [];
const resolved: string[] = [];

function fresh(): void {
  schema = freshSchemaName();
  env = {
    DATABASE_URL: TEST_DATABASE_URL,
    HOOKLINE_PG_SCHEMA: schema,
    // Short, so a killed worker is declared dead within the test.
    HOOKLINE_WORKER_HEARTBEAT_MS: "200",
    HOOKLINE_WORKER_DEAD_AFTER_MS: "1000",
    HOOKLINE_ALERT_INTERVAL_SECONDS: "3600",
  };
}

afterEach(async () => {
  for (const c of children.splice(0)) {
    c.child.kill("SIGKILL");
    await c.exited;
  }
  for (const w of workers.splice(0)) await w.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  await dropSchema(schema);
  fired.length = 0;
  resolved.length = 0;
});

async function aWorker(): Promise<TestHookline> {
  const w = await startHookline({ env });
  workers.push(w);
  w.hookline.observability.evaluator.onChange((c: AlertChanges) => {
    fired.push(...c.fired.map((a) => a.id));
    resolved.push(...c.resolved.map((a) => a.id));
  });
  return w;
}

async function stopWorker(w: TestHookline): Promise<void> {
  workers.splice(workers.indexOf(w), 1);
  await w.stop();
}

const tick = (w: TestHookline) => w.hookline.observability.evaluator.tick();

async function drill(w: TestHookline, passed: boolean): Promise<void> {
  const now = Date.now();
  await w.hookline.store.recordDrillRun(
    {
      id: newId("drill", now),
      trigger: "manual",
      startedAt: now,
      finishedAt: now,
      passed,
      steps: [],
    },
    100,
  );
}

async function drillAlerts(w: TestHookline): Promise<Alerts> {
  const { body } = await w.api<Alerts>("GET", "/api/v1/alerts");
  const ofRule = (list: Alert[]) => list.filter((a) => a.rule === "drill_failing");
  return { firing: ofRule(body.firing), resolved: ofRule(body.resolved) };
}

const liveWorkers = async () =>
  Number((await adminQuery(`SELECT count(*) AS n FROM ${schema}.workers`))[0]!.n);

/** Workers A and B, each firing its own `drill_failing` (A's first, so A's has fired longer). */
async function twoWorkersFiring() {
  fresh();
  const a = await aWorker();
  const b = await aWorker();
  await drill(a, false);
  await tick(a);
  await tick(b);
  expect((await drillAlerts(b)).firing).toHaveLength(2);
  const [ofA, ofB] = fired as [string, string];
  return { a, b, ofA, ofB };
}

describe("a worker that leaves while its alert is firing", () => {
  it("stopped cleanly: a worker that stays carries the alert on and resolves it once", async () => {
    const { a, b, ofA, ofB } = await twoWorkersFiring();

    await stopWorker(a);
    await tick(b);
    // A's alert has fired longer: it carries on; B's own is resolved as superseded by it.
    const merged = await drillAlerts(b);
    expect(merged.firing.map((x) => x.id)).toEqual([ofA]);
    expect(merged.resolved).toEqual([expect.objectContaining({ id: ofB, supersededBy: ofA })]);

    await drill(b, true);
    await tick(b);
    const after = await drillAlerts(b);
    expect(after.firing).toEqual([]);
    expect(after.resolved.find((x) => x.id === ofA)).toMatchObject({ supersededBy: null });
    // Each alert fired once and resolved once, whichever worker announced it.
    expect(fired).toHaveLength(2);
    expect([...resolved].sort()).toEqual([...fired].sort());
  });

  it("declared dead while only paused: it lets go of the alert and announces nothing", async () => {
    const { a, b, ofA, ofB } = await twoWorkersFiring();
    // What reaping does to a worker whose heartbeat stopped for too long (a long pause).
    await adminQuery(`DELETE FROM ${schema}.workers WHERE id = $1`, [a.hookline.engine.fleet!.id]);
    await tick(b);
    expect((await drillAlerts(b)).firing.map((x) => x.id)).toEqual([ofA]);

    // A wakes up still firing its alert and sees the condition end: B evaluates it now.
    await drill(b, true);
    await tick(a);
    expect((await drillAlerts(b)).firing.map((x) => x.id)).toEqual([ofA]);
    await tick(b);
    expect((await drillAlerts(b)).firing).toEqual([]);
    expect([...resolved].sort()).toEqual([ofA, ofB].sort());
  });

  it("killed and never restarted: once declared dead, its alert is carried on and resolves", async () => {
    fresh();
    const b = await aWorker();
    const dir = mkdtempSync(join(tmpdir(), "hookline-alerts-"));
    dirs.push(dir);
    const a = await spawnHookline(dir, { ...env, HOOKLINE_ALERT_INTERVAL_SECONDS: "1" }, "worker");
    children.push(a);
    await drill(b, false);
    // The child fires its own alert at its next evaluation.
    await expect
      .poll(async () => (await drillAlerts(b)).firing.length, { timeout: 20_000 })
      .toBe(1);
    const [ofA] = (await drillAlerts(b)).firing.map((x) => x.id);
    await tick(b);
    expect((await drillAlerts(b)).firing).toHaveLength(2);

    a.child.kill("SIGKILL");
    await a.exited;
    children.splice(children.indexOf(a), 1);
    await expect.poll(liveWorkers, { timeout: 20_000 }).toBe(1);
    await tick(b);
    expect((await drillAlerts(b)).firing.map((x) => x.id)).toEqual([ofA]);

    await drill(b, true);
    await tick(b);
    const after = await drillAlerts(b);
    expect(after.firing).toEqual([]);
    expect(after.resolved).toHaveLength(2);
  });
});

describe("workers that start together on an alert left firing", () => {
  it("take it on once: its resolution is announced once", async () => {
    fresh();
    const ops = await Receiver.start(() => ({ status: 204 }));
    try {
      const a = await aWorker();
      const op = await a.api("POST", "/api/v1/operational-webhook/endpoint", {
        url: ops.url("/ops"),
      });
      expect(op.status).toBe(201);
      await drill(a, false);
      await tick(a);
      const [left] = (await drillAlerts(a)).firing;
      await stopWorker(a);

      const b = await aWorker();
      const c = await aWorker();
      await drill(b, true);
      await tick(b);
      await tick(c);
      for (const w of [b, c]) await w.hookline.observability.operational.idle();
      const after = await drillAlerts(b);
      expect(after.firing).toEqual([]);
      expect(after.resolved.map((x) => x.id)).toEqual([left!.id]);
      expect(resolved.filter((id) => id === left!.id)).toHaveLength(1);
      const announced = await adminQuery(
        `SELECT count(*) AS n FROM ${schema}.messages WHERE event_type = 'alert.resolved'`,
      );
      expect(Number(announced[0]!.n)).toBe(1);
    } finally {
      await ops.close();
    }
  });
});
