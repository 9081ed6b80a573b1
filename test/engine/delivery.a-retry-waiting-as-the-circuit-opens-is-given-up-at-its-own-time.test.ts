/**
 * A retry already waiting when its endpoint's circuit opens, whose window ends before the probe,
 * has no attempt left to make: it is given up (exhausted, unsent) when its own time comes, not at
 * the probe. The circuit moved every waiting delivery of its endpoint to the probe, this one
 * too, so it stayed pending until the probe (30 min on here) only to be given up there, while
 * its message's page said it would be given up then.
 */
import { afterEach, describe, expect, it } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { reached, settle, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver } from "../support/receiver.js";

const SEC = 1000;
const MIN = 60 * SEC;

describe("a retry waiting as its circuit opens, the probe past its window", () => {
  let h: EngineHarness;
  let rx: Receiver;
  afterEach(async () => {
    await h.close();
    await rx.close();
  });

  it("keeps its own time and is given up then, unsent", async () => {
    const clock = new FakeClock();
    h = await startEngine({
      clock,
      breaker: { consecutiveFailures: 2, probeDelayMs: 30 * MIN },
    });
    rx = await Receiver.start(() => ({ status: 503 }));
    // One retry, 10 s on, within a minute of the first attempt.
    await h.addEndpoint(rx.url("/hook"), { retry: { delays: [10], window: 60 } });
    const t0 = clock.now();

    const waiting = await h.post({ n: 1 });
    await h.waitFor(reached(waiting, "pending"));
    // A second failure opens the circuit; its own retry is given up at once.
    const second = await h.post({ n: 2 });
    await h.waitFor((e) => e.type === "circuit" && e.transition.to === "open");
    await h.waitFor(reached(second, "dead"));

    expect((await h.store.listDeliveries(waiting))[0]).toMatchObject({
      state: "pending",
      attemptCount: 1,
      nextAttemptAt: t0 + 10 * SEC,
    });

    clock.advance(15 * SEC);
    const end = await h.waitFor(reached(waiting, "dead"));
    expect(end).toMatchObject({ failureClass: "exhausted" });
    if (end.type !== "delivery") throw new Error("not a delivery event");
    expect(await h.store.findDeadLetterByDelivery(end.deliveryId)).toMatchObject({
      failureClass: "exhausted",
      state: "open",
    });
    await settle();
    expect(rx.requests).toHaveLength(2);
    expect((await h.store.listDeliveries(waiting))[0]).toMatchObject({
      state: "dead",
      attemptCount: 1,
    });
  });
});
