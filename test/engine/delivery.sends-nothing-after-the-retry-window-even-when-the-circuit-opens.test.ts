/**
 * A retry window is a promise to the receiving team: nothing of this delivery arrives later than
 * the first attempt plus the window. An open circuit holds retries until its probe; when that is
 * past the window, the delivery is exhausted instead (dead-lettered, replayable), whether its retry
 * was being decided or was already waiting.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { EngineEvent } from "../../src/engine/events.js";
import { FakeClock } from "../support/fake-clock.js";
import { reached, settle, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver } from "../support/receiver.js";

const MIN = 60_000;

describe("a 60 s retry window and a circuit that opens for 5 minutes", () => {
  let h: EngineHarness;
  let rx: Receiver;
  afterEach(async () => {
    await h.close();
    await rx.close();
  });

  it("exhausts the deliveries whose window ends before the probe; only a fresh one is the probe", async () => {
    const clock = new FakeClock();
    h = await startEngine({ clock, breaker: { consecutiveFailures: 2 } });
    rx = await Receiver.start((_req, i) => ({ status: i < 2 ? 503 : 200 }));
    await h.addEndpoint(rx.url("/time-sensitive"), {
      retry: { delays: [10, 10, 10], window: 60 },
    });
    const failing = [await h.post({ n: 1 }, { wake: false }), await h.post({ n: 2 })];
    await h.waitFor((e) => e.type === "circuit" && e.transition.to === "open");
    const fresh = await h.post({ n: 3 });
    await settle();
    expect(rx.requests).toHaveLength(2);

    // The first retry comes due (10 s) while the circuit is open, then the probe (5 min).
    clock.advance(15_000);
    await settle();
    clock.advance(5 * MIN - 15_000);
    await h.waitFor(reached(fresh, "succeeded"));
    const ends: EngineEvent[] = [];
    for (const id of failing) ends.push(await h.waitFor(reached(id, "dead")));
    for (let i = 0; i < 3; i++) await settle();
    expect(rx.requests).toHaveLength(3);
    for (const e of ends) {
      expect(e).toMatchObject({ failureClass: "exhausted" });
      if (e.type !== "delivery") continue;
      const dl = await h.store.findDeadLetterByDelivery(e.deliveryId);
      expect(dl).toMatchObject({ failureClass: "exhausted", state: "open" });
    }
    for (const id of failing) {
      expect((await h.store.listDeliveries(id))[0]).toMatchObject({ attemptCount: 1 });
    }
  });
});
