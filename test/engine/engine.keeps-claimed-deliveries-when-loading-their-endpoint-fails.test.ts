/**
 * Claimed deliveries are admitted one by one, loading each one's endpoint from the store when the
 * engine does not know it yet. A store error there must not strand the rest of the batch: claimed
 * in the store, which nothing gives back while the process lives, and counted against the
 * engine's budget forever.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { reached, settle, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver } from "../support/receiver.js";

describe("a store error while loading a claimed delivery's endpoint", () => {
  let h: EngineHarness;
  let rx: Receiver;
  afterEach(async () => {
    await h.close();
    await rx.close();
  });

  it("holds back only that delivery, and sends it a second later", async () => {
    const clock = new FakeClock();
    h = await startEngine({ clock });
    rx = await Receiver.start();
    const a = await h.addEndpoint(rx.url("/a"));
    const b = await h.addEndpoint(rx.url("/b"));
    // One message, one delivery to each endpoint, claimed in one batch.
    const msg = await h.post({ n: 1 }, { wake: false });
    vi.spyOn(h.store, "getEndpoint").mockRejectedValueOnce(new Error("database is locked"));
    h.engine.wake();

    // The delivery whose endpoint loaded goes now; the other waits for the store.
    await rx.waitFor(1);
    await settle();
    expect(rx.requests).toHaveLength(1);
    expect(h.engine.deliveryBudget().held).toBe(1);

    clock.advance(1000);
    for (const ep of [a, b]) {
      await h.waitFor(
        (e) => e.type === "delivery" && e.endpointId === ep.id && reached(msg, "succeeded")(e),
        5_000,
      );
    }
    expect(rx.requests.map((r) => r.path).sort()).toEqual(["/a", "/b"]);
    const states = (await h.store.listDeliveries(msg)).map((d) => d.state);
    expect(states).toEqual(["succeeded", "succeeded"]);
    expect(h.engine.deliveryBudget().held).toBe(0);
  });
});
