/**
 * A fleet worker that hears no signals (behind a transaction-mode pooler, whose LISTEN keeps no
 * server connection) learns of changed settings only when it loads an endpoint afresh: after it
 * handed the endpoint back and takes it again. That holds for the application's delivery policy
 * as well as for the endpoint's own settings: the application is read again then, not taken from
 * what the worker remembered of it.
 */
import { expect, it } from "vitest";
import type { WorkerCoordination } from "../../src/store/coordination.js";
import type { Store } from "../../src/store/port.js";
import { accept, anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { fleetWorkerSettings, startFleetWorker } from "../support/fleet-worker.js";
import { withOverrides } from "../support/overrides.js";
import { useCleanup } from "../support/cleanup.js";
import { aSharedStore } from "../support/postgres.js";
import { Receiver } from "../support/receiver.js";

const cleanup = useCleanup();

it("an endpoint handed back and taken again follows its application's changed policy", async () => {
  const shared = await aSharedStore(cleanup);
  const rx = await Receiver.start(() => ({ status: 200 }));
  cleanup.push(() => rx.close());
  const app = await shared.createApplication(
    anApplication({ deliveryPolicy: { concurrencyLimit: 2 } }),
  );
  const ep = await shared.createEndpoint(anEndpoint(app.id, { url: rx.url() }));
  // Signals never arrive.
  const coordination = withOverrides<WorkerCoordination>(shared.coordination!, {
    subscribe: async () => async () => {},
  });
  const store = withOverrides<Store>(shared, { coordination });
  const settings = fleetWorkerSettings({
    concurrencyLimit: 10,
    heartbeatMs: 50,
    deadAfterMs: 5_000,
  });
  const engine = await startFleetWorker(
    store,
    { ...settings, fleet: { ...settings.fleet!, idleReleaseMs: 200 } },
    cleanup,
  );

  await accept(shared, app.id, { now: Date.now() });
  await rx.waitFor(1);
  expect(engine.endpointStatus(ep.id)?.limit).toBe(2);

  await shared.updateApplication({
    ...app,
    deliveryPolicy: { concurrencyLimit: 3 },
    updatedAt: Date.now(),
  });
  // Idle, so handed back: the worker forgets the endpoint.
  await expect.poll(() => engine.endpointStatus(ep.id), { timeout: 20_000 }).toBeNull();

  // Taken again with the next message (found by the heartbeat's look for unowned work).
  await accept(shared, app.id, { now: Date.now() });
  await rx.waitFor(2, undefined, 10_000);
  expect(engine.endpointStatus(ep.id)?.limit).toBe(3);
}, 30_000);
