/**
 * One worker on a shared PostgreSQL. A claim that started before endpoint E was marked to let go
 * of (idle) brings a delivery of E, behind one of F whose endpoint takes a while to load. While
 * the claim's batch is being admitted, E must not be handed back: its delivery would then be
 * sent by a worker that no longer owns E. Whenever a request to E is out, this worker owns E.
 */
import { describe, expect, it } from "vitest";
import type { Store } from "../../src/store/port.js";
import type { PostgresStore } from "../../src/store/postgres/store.js";
import { accept, anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { useCleanup } from "../support/cleanup.js";
import { adminQuery, aSharedStore, freshSchemaName } from "../support/postgres.js";
import { fleetWorkerSettings, startFleetWorker } from "../support/fleet-worker.js";
import { withOverrides } from "../support/overrides.js";
import { Receiver } from "../support/receiver.js";

const HEARTBEAT_MS = 50;
const IDLE_MS = 150;
/** Longer than the idle time, so E is marked while the claim runs. */
const CLAIM_MS = 400;
/** Several heartbeats: long enough for one to free E while F loads. */
const LOAD_MS = 300;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("an endpoint marked to let go of while a claim brings its deliveries", () => {
  const cleanup = useCleanup();

  it("is not handed back before they are queued; no request goes out without owning it", async () => {
    const schema = freshSchemaName();
    const store: PostgresStore = await aSharedStore(cleanup, schema);
    const rx = await Receiver.start((req) => ({
      status: 200,
      delayMs: req.path === "/e" ? 300 : 0,
    }));
    cleanup.push(() => rx.close());
    const appE = await store.createApplication(anApplication());
    const appF = await store.createApplication(anApplication());
    const e = await store.createEndpoint(anEndpoint(appE.id, { url: rx.url("/e") }));
    const f = await store.createEndpoint(anEndpoint(appF.id, { url: rx.url("/f") }));

    let armed = false;
    let loadF = false;
    const slowed = withOverrides<Store>(store, {
      claimDue: async (req) => {
        if (armed) await sleep(CLAIM_MS);
        return store.claimDue(req);
      },
      scanDue: async (req) => {
        if (armed) await sleep(CLAIM_MS);
        return store.scanDue(req);
      },
      getEndpoint: async (id) => {
        if (id === f.id && loadF) {
          loadF = false;
          await sleep(LOAD_MS);
        }
        return store.getEndpoint(id);
      },
    });

    const settings = fleetWorkerSettings({
      concurrencyLimit: 5,
      heartbeatMs: HEARTBEAT_MS,
      deadAfterMs: 3_000,
    });
    settings.fleet = { ...settings.fleet!, idleReleaseMs: IDLE_MS };
    await startFleetWorker(slowed, settings, cleanup);

    // E is this worker's, and its runtime known: the next delivery of E needs no loading.
    await accept(store, appE.id, { now: Date.now() });
    await rx.waitFor(1, "/e");
    expect(await ownerOf(e.id)).toMatch(/^wkr_/);
    // Its answer arrives, and E falls idle from then on.
    await sleep(350);

    // The next claim runs long, starting before E falls idle and ending after it is marked; its
    // batch holds F's delivery (loaded slowly) ahead of E's.
    armed = true;
    loadF = true;
    const now = Date.now();
    await accept(store, appF.id, { now: now - 1 });
    await accept(store, appE.id, { now });

    // Each request to E is answered after 300 ms: look at the owner while it is out.
    const owners: (string | null)[] = [];
    while (rx.on("/e").length < 2) await sleep(5);
    armed = false;
    owners.push(await ownerOf(e.id));
    await rx.waitFor(1, "/f");
    expect(owners).toEqual([expect.stringMatching(/^wkr_/)]);

    async function ownerOf(endpointId: string): Promise<string | null> {
      const rows = await adminQuery(
        `SELECT o.worker_id FROM ${schema}.endpoint_owners o
         JOIN ${schema}.workers w ON w.id = o.worker_id WHERE o.endpoint_id = $1`,
        [endpointId],
      );
      return rows[0] ? String(rows[0].worker_id) : null;
    }
  }, 30_000);
});
