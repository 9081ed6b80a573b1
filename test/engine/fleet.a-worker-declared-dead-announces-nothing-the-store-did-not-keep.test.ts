/**
 * One worker on a shared PostgreSQL sends to endpoint E, whose receiver holds the request. Another
 * worker declares it dead and takes the delivery over, and the first worker has not noticed yet
 * (its next heartbeat is far off). Then the held request is answered. The first worker still
 * believes it holds the delivery and writes the outcome, but the store keeps none of it (the row
 * is the new owner's claim), so the outcome must not be announced either: delivery events feed the
 * metrics, the operational webhooks and the dashboard, which would count an attempt that the
 * delivery's new owner then makes again.
 */
import { expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import type { EngineEvent } from "../../src/engine/events.js";
import { HooklineMetrics } from "../../src/observability/metrics.js";
import { MINUTE } from "../store/behaviour/fixtures.js";
import { aRequestOutWhenTakenOver, fleetWorkerSettings } from "../support/fleet-worker.js";
import { useCleanup } from "../support/cleanup.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const cleanup = useCleanup();

it("neither announces nor counts an answer that arrives before it notices", async () => {
  const settings = fleetWorkerSettings({
    concurrencyLimit: 5,
    // No heartbeat during the test: the worker does not learn that it was declared dead.
    heartbeatMs: 10 * MINUTE,
    deadAfterMs: 20 * MINUTE,
  });
  const { store, engine, rx, messageId, first } = await aRequestOutWhenTakenOver(
    cleanup,
    200,
    settings,
  );
  const metrics = new HooklineMetrics({
    store,
    engine,
    events: engine.events,
    clock: systemClock,
    settings: { maxEndpoints: 10, slotIdleMs: MINUTE },
  });
  const announced: EngineEvent[] = [];
  engine.events.on((ev) => announced.push(ev));

  rx.release();
  while (engine.deliveryBudget().held > 0) await sleep(10);
  await engine.stop(); // the outcome writer's last batch is committed, and announced, by now
  expect(engine.fleet!.id).toBe(first); // it never noticed
  const [delivery] = await store.listDeliveries(messageId);
  expect(delivery).toMatchObject({ state: "inflight", attemptCount: 0 });
  expect(announced).toEqual([]);
  expect(metrics.tally.firstAttempts).toBe(0);
  expect(metrics.tally.lastMinute(Date.now())).toEqual({ succeeded: 0, failed: 0 });
}, 30_000);
