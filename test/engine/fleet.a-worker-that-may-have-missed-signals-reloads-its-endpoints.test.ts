/**
 * A fleet worker on PostgreSQL learns of endpoint changes from other processes' signals. Signals
 * sent while its listening connection was away are lost; when it is back, the worker is told it
 * may have missed some. An endpoint it owned all along, busy with a backlog (so never handed
 * back), had its URL changed meanwhile: the worker must send to the new URL from then on, not
 * to the old one for as long as it keeps the endpoint.
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

const BACKLOG = 100;

const cleanup = useCleanup();

it("reloads every endpoint it holds once its signals may have been missed", async () => {
  const shared = await aSharedStore(cleanup);
  const rx = await Receiver.start(() => ({ status: 200, delayMs: 100 }));
  cleanup.push(() => rx.close());
  const app = await shared.createApplication(anApplication());
  const ep = await shared.createEndpoint(anEndpoint(app.id, { url: rx.url("/old") }));
  const now = Date.now();
  for (let i = 0; i < BACKLOG; i++) await accept(shared, app.id, { now });

  // The worker's listening connection, as the store reports its gaps to it.
  const c = shared.coordination!;
  let gap: (() => void) | null = null;
  const coordination = withOverrides<WorkerCoordination>(c, {
    subscribe: (self, onSignals, onGap) => {
      gap = onGap;
      return c.subscribe(self, onSignals, onGap);
    },
  });
  const store = withOverrides<Store>(shared, { coordination });
  const settings = fleetWorkerSettings({
    concurrencyLimit: 2,
    heartbeatMs: 100,
    deadAfterMs: 10_000,
  });
  await startFleetWorker(store, settings, cleanup);
  await rx.waitFor(4, "/old");

  // Moved while the worker was not listening: the signal that said so never reached it.
  await shared.updateEndpoint({ ...ep, url: rx.url("/new"), updatedAt: Date.now() });
  gap!();
  await rx.waitFor(1, "/new");
  const moved = rx.on("/new")[0]!.at;
  // Requests already out may still arrive; none starts for the old URL after the first new one.
  await new Promise((r) => setTimeout(r, 500));
  expect(rx.on("/old").filter((r) => r.at > moved)).toEqual([]);
}, 30_000);
