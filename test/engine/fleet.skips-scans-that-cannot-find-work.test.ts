/**
 * A fleet worker on PostgreSQL refilling a full endpoint: every freed slot wakes it, and a scan
 * for other work right after one that found nothing, with nothing announced since, cannot find
 * anything either. It skips those, as a worker alone with SQLite does; what such a scan may
 * have missed in a fleet is found by endpoint instead (fleet.finds-unannounced-work-…). Work
 * announced meanwhile is still found by a scan.
 */
import { expect, it, vi } from "vitest";
import { accept, anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { fleetWorkerSettings, startFleetWorker } from "../support/fleet-worker.js";
import { useCleanup } from "../support/cleanup.js";
import { aSharedStore } from "../support/postgres.js";
import { Receiver } from "../support/receiver.js";

const BACKLOG = 60;

const cleanup = useCleanup();

it("skips them while a full endpoint is refilled, and still scans for announced work", async () => {
  const store = await aSharedStore(cleanup);
  const rx = await Receiver.start(() => ({ status: 200, delayMs: 2 }));
  cleanup.push(() => rx.close());
  const app = await store.createApplication(anApplication());
  await store.createEndpoint(anEndpoint(app.id, { url: rx.url("/full"), channels: ["full"] }));
  await store.createEndpoint(anEndpoint(app.id, { url: rx.url("/new"), channels: ["new"] }));
  for (let i = 0; i < BACKLOG; i++) {
    await accept(store, app.id, { channels: ["full"], now: Date.now() });
  }

  const scans = vi.spyOn(store, "scanDue");
  const settings = fleetWorkerSettings({
    concurrencyLimit: 2,
    heartbeatMs: 1_000,
    deadAfterMs: 10_000,
  });
  const engine = await startFleetWorker(store, settings, cleanup);
  await rx.waitFor(BACKLOG, "/full", 20_000);
  // One scan finds the backlog and one finds nothing more; each of the refills used to scan.
  expect(scans.mock.calls.length).toBeLessThanOrEqual(4);

  // Announced work still gets a scan of its own.
  await accept(store, app.id, { channels: ["new"], now: Date.now() });
  const before = scans.mock.calls.length;
  engine.wake(Date.now());
  await rx.waitFor(1, "/new", 10_000);
  expect(scans.mock.calls.length).toBeGreaterThan(before);
}, 30_000);
