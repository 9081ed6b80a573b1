/**
 * A fleet worker stops cleanly (SIGTERM) while one of its claims is under way on PostgreSQL: the
 * claim has taken its deliveries in the store, and its answer is still to come. Those deliveries
 * must be handed back with the rest of what the worker holds, not left claimed by a worker that
 * has left, where they wait for another worker's reaping and its next look for unowned work.
 */
import { expect, it } from "vitest";
import type { Store } from "../../src/store/port.js";
import { accept, anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { fleetWorkerSettings, startFleetWorker } from "../support/fleet-worker.js";
import { withOverrides } from "../support/overrides.js";
import { useCleanup } from "../support/cleanup.js";
import { adminQuery, aSharedStore, freshSchemaName } from "../support/postgres.js";
import { Receiver } from "../support/receiver.js";

const cleanup = useCleanup();

it("a clean stop hands back the deliveries of a claim that was under way", async () => {
  const schema = freshSchemaName();
  const shared = await aSharedStore(cleanup, schema);
  const rx = await Receiver.start(() => ({ status: 200 }));
  cleanup.push(() => rx.close());
  const app = await shared.createApplication(anApplication());
  for (let i = 0; i < 8; i++) {
    await shared.createEndpoint(anEndpoint(app.id, { url: rx.url(`/${i}`) }));
  }
  const now = Date.now();
  for (let i = 0; i < 100; i++) await accept(shared, app.id, { now });

  // Each claim's answer comes 200 ms after the store has made it; the stop comes meanwhile.
  let answered: (() => void) | null = null;
  const claimed = new Promise<void>((r) => (answered = r));
  const slow = async <T>(claim: () => Promise<T>): Promise<T> => {
    const out = await claim();
    answered?.();
    await new Promise((r) => setTimeout(r, 200));
    return out;
  };
  const store = withOverrides<Store>(shared, {
    claimDue: (req) => slow(() => shared.claimDue(req)),
    scanDue: (req) => slow(() => shared.scanDue(req)),
  });
  const settings = fleetWorkerSettings({
    concurrencyLimit: 10,
    heartbeatMs: 100,
    deadAfterMs: 10_000,
  });
  const engine = await startFleetWorker(store, settings, cleanup);
  await claimed;
  await engine.stop();

  const left = await adminQuery(
    `SELECT count(*)::int AS n FROM ${schema}.deliveries WHERE state = 'inflight'`,
  );
  expect(left[0]!.n).toBe(0);
}, 30_000);
