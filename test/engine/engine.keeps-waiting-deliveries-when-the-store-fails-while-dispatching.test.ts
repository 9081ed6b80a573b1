/**
 * Dispatching an endpoint's queue runs after every finished attempt, with nobody awaiting it, and
 * may write to the store (putting deliveries back until a circuit's probe). A store failure there
 * must neither reject unhandled (Node 20 ends the process on one) nor lose what waited: the
 * deliveries stay in hand and the engine dispatches again a second later.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { reached, settle, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver } from "../support/receiver.js";

const MIN = 60_000;

describe("a store failure while dispatching", () => {
  let h: EngineHarness;
  let rx: Receiver;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  afterEach(async () => {
    process.off("unhandledRejection", onUnhandled);
    unhandled.length = 0;
    await h.close();
    await rx.close();
  });

  it("rejects nothing unhandled, and the waiting delivery is held for the probe once the store answers", async () => {
    process.on("unhandledRejection", onUnhandled);
    const clock = new FakeClock();
    h = await startEngine({ clock, breaker: { consecutiveFailures: 1 } });
    rx = await Receiver.start((_req, i) => ({ status: i === 0 ? 503 : 200 }));
    await h.addEndpoint(rx.url("/hook"), { concurrencyLimit: 1 });
    // The start's first scan is over (else it claims the first message alone, in its commit).
    await settle();
    // Putting the queue back until the probe fails once.
    const releases = vi
      .spyOn(h.store, "releaseDeliveries")
      .mockRejectedValueOnce(new Error("disk I/O error"));
    const first = await h.post({ n: 1 }, { wake: false });
    const second = await h.post({ n: 2 });
    // The first is sent, fails and opens the circuit; the second waited in the queue.
    await rx.waitFor(1);
    await h.waitFor((e) => e.type === "circuit" && e.transition.to === "open");
    await settle();
    expect(releases).toHaveBeenCalledTimes(1);
    expect(unhandled).toEqual([]);
    expect(h.engine.deliveryBudget().held).toBe(1);

    clock.advance(1000);
    await settle();
    expect(releases).toHaveBeenCalledTimes(2);
    expect(h.engine.deliveryBudget().held).toBe(0);
    expect((await h.store.listDeliveries(second))[0]).toMatchObject({ state: "pending" });

    clock.advance(5 * MIN);
    await h.waitFor(reached(first, "succeeded"));
    await h.waitFor(reached(second, "succeeded"));
    expect(rx.requests).toHaveLength(3);
    expect(h.engine.deliveryBudget().held).toBe(0);
    expect(unhandled).toEqual([]);
  });
});
