/**
 * Deleting an endpoint deletes its deliveries. Those the engine already held in the endpoint's
 * queue must go with them: not be sent to the old URL, signed with the old secret, and then
 * recorded nowhere because their rows are gone. The answer to the request already in flight is
 * recorded nowhere either, so it is not announced as a delivery event.
 */
import { afterEach, describe, expect, it } from "vitest";
import { settle, startEngine, type EngineHarness } from "../support/engine.js";
import { GatedReceiver } from "../support/gated-receiver.js";

describe("an endpoint deleted while deliveries wait in its queue", () => {
  let h: EngineHarness;
  let rx: GatedReceiver;
  afterEach(async () => {
    await h.close();
    await rx.close();
  });

  it("gets none of them: only the request already in flight reaches the receiver", async () => {
    h = await startEngine();
    rx = await GatedReceiver.start();
    const ep = await h.addEndpoint(rx.url(), { concurrencyLimit: 1 });
    // The start's first scan is over (else it claims the first message alone, in its commit).
    await settle();
    for (let i = 0; i < 5; i++) await h.post({ i }, { wake: false });
    h.engine.wake();
    await rx.arrived(1);
    expect(h.engine.endpointStatus(ep.id)).toMatchObject({ inFlight: 1, queued: 4 });

    await h.store.deleteEndpoint(h.app.id, ep.id);
    h.engine.invalidateEndpoint(ep.id);
    rx.release();
    // The first request's answer comes back (its row is gone: the outcome changes nothing).
    while (h.engine.deliveryBudget().held > 0) await settle();
    for (let i = 0; i < 5; i++) await settle();
    expect(rx.ids).toHaveLength(1);
    expect(h.engine.endpointStatus(ep.id)).toBeNull();
    await h.engine.stop(); // the outcome writer's last batch is committed, and announced, by now
    expect(h.events.filter((e) => e.type === "delivery")).toEqual([]);
  });
});
