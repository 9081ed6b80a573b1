/**
 * A fleet worker on PostgreSQL finds work no signal announced (messages written straight into
 * the store here), on an endpoint nobody owns and on one it owns, through the heartbeat's looks
 * by endpoint. Those looks never send its scan back over a backlog that another live worker
 * owns: the scan starts from the first due row once, at start, and from where it stood after.
 */
import { expect, it } from "vitest";
import type { WorkerCoordination } from "../../src/store/coordination.js";
import type { ScanPosition, Store } from "../../src/store/port.js";
import { accept, anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { fleetWorkerSettings, startFleetWorker } from "../support/fleet-worker.js";
import { withOverrides } from "../support/overrides.js";
import { useCleanup } from "../support/cleanup.js";
import { aSharedStore } from "../support/postgres.js";
import { Receiver } from "../support/receiver.js";

const BACKLOG = 300;
const HEARTBEAT_MS = 50;

const cleanup = useCleanup();

it("takes unannounced work by endpoint and never walks another worker's backlog again", async () => {
  const shared = await aSharedStore(cleanup);
  const rx = await Receiver.start(() => ({ status: 200 }));
  cleanup.push(() => rx.close());
  const app = await shared.createApplication(anApplication());
  const theirs = await shared.createEndpoint(
    anEndpoint(app.id, { url: rx.url("/theirs"), channels: ["theirs"] }),
  );
  await shared.createEndpoint(anEndpoint(app.id, { url: rx.url("/mine"), channels: ["mine"] }));

  // Another live worker owns an endpoint with a backlog due before this worker starts.
  const backlogDue = Date.now() - 1_000;
  for (let i = 0; i < BACKLOG; i++) {
    await accept(shared, app.id, { channels: ["theirs"], now: backlogDue });
  }
  const other = "wkr_other";
  const c = shared.coordination!;
  await c.register({ id: other, role: "worker", host: "test", now: Date.now() });
  const taken = await shared.claimDue({
    now: Date.now(),
    limit: 1,
    excludeEndpoints: [],
    leaseUntil: Date.now() + 60_000,
    endpointId: theirs.id,
    worker: { id: other, deadBefore: Date.now() - 60_000, onContended: () => {} },
  });
  expect(taken).toHaveLength(1);

  // Where each scan starts, and how many heartbeats have looked at this worker's endpoints.
  const scansFrom: ScanPosition[] = [];
  let looks = 0;
  const coordination = withOverrides<WorkerCoordination>(c, {
    dueOwned: (id: string, now: number) => {
      looks++;
      return c.dueOwned(id, now);
    },
  });
  const store = withOverrides<Store>(shared, {
    coordination,
    scanDue: (req: Parameters<Store["scanDue"]>[0]) => {
      scansFrom.push(req.from);
      return shared.scanDue(req);
    },
  });
  const settings = fleetWorkerSettings({
    concurrencyLimit: 10,
    heartbeatMs: HEARTBEAT_MS,
    // The other worker never beats again; it must stay alive for the whole test.
    deadAfterMs: 60_000,
  });
  await startFleetWorker(store, settings, cleanup);

  // Nobody owns "mine": the sweep for endpoints without an owner takes it.
  await accept(shared, app.id, { channels: ["mine"], now: Date.now() });
  await rx.waitFor(1, "/mine", 10_000);
  // Now this worker owns it: its own heartbeat's look takes the next one.
  await accept(shared, app.id, { channels: ["mine"], now: Date.now() });
  await rx.waitFor(2, "/mine", 10_000);
  const after = looks;
  await expect
    .poll(() => looks, { timeout: 10_000, interval: HEARTBEAT_MS })
    .toBeGreaterThan(after + 5);

  expect(rx.on("/theirs")).toEqual([]);
  expect(scansFrom.length).toBeGreaterThan(0);
  const [first, ...rest] = scansFrom;
  expect(first!.due).toBeLessThan(backlogDue);
  expect(rest.filter((from) => from.due <= backlogDue)).toEqual([]);
}, 30_000);
