/**
 * Two workers on a shared PostgreSQL. Worker A's request to endpoint E is answered 410 Gone: A
 * disables E at once in memory, but the disabling reaches the store with the attempt's outcome,
 * a write of its own (held here, as a slow commit would hold it). E, with nothing left in hand,
 * must not be handed back meanwhile: whichever worker took it would load it from the store still
 * enabled and send E's next message to a receiver that said it is gone (the fleet run that found
 * this sent such a request to 3 endpoints in 30, and disabled each twice).
 */
import { describe, expect, it } from "vitest";
import type { DeliveryOutcome } from "../../src/store/port.js";
import { accept, anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { useCleanup } from "../support/cleanup.js";
import { fleetWorkerSettings, startFleetWorker } from "../support/fleet-worker.js";
import { holdFirstCall } from "../support/held-store-call.js";
import { aSharedStore } from "../support/postgres.js";
import { Receiver } from "../support/receiver.js";

const HEARTBEAT_MS = 50;
/** Short, so that E, idle after its 410, would be handed back within the test. */
const IDLE_MS = 150;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("an endpoint whose 410 is still being written", () => {
  const cleanup = useCleanup();

  it("stays with its worker until then, and no worker sends it anything more", async () => {
    const store = await aSharedStore(cleanup);
    const rx = await Receiver.start(() => ({ status: 410 }));
    cleanup.push(() => rx.close());
    const app = await store.createApplication(anApplication());
    const e = await store.createEndpoint(anEndpoint(app.id, { url: rx.url("/e") }));

    const settings = fleetWorkerSettings({
      concurrencyLimit: 5,
      heartbeatMs: HEARTBEAT_MS,
      deadAfterMs: 3_000,
    });
    settings.fleet = { ...settings.fleet!, idleReleaseMs: IDLE_MS };
    const disabling = (outcomes: readonly DeliveryOutcome[]) =>
      outcomes.some((o) => o.disableEndpoint !== null);
    const held = holdFirstCall(store, "recordAttempts", disabling);
    const a = await startFleetWorker(held.store, settings, cleanup);

    await accept(store, app.id, { now: Date.now() });
    a.wake();
    await held.reached;
    expect(rx.on("/e")).toHaveLength(1);
    // A second worker that could take E, and time for E to fall idle and be let go of many times.
    await startFleetWorker(store, settings, cleanup);
    await sleep(6 * IDLE_MS);

    // E's next message: looked for by both workers at their heartbeats.
    const { message } = await accept(store, app.id, { now: Date.now() });
    await sleep(20 * HEARTBEAT_MS);
    held.release();
    for (;;) {
      const [d] = await store.listDeliveries(message.id);
      if (d?.state === "dead") break;
      await sleep(10);
    }

    expect(rx.on("/e")).toHaveLength(1);
    expect((await store.getEndpoint(e.id))?.disabled).toBe(true);
  }, 30_000);
});
