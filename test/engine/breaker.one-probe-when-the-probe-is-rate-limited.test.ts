/**
 * A receiver whose circuit is open and that answers the probe with 429 is pacing hookline, not
 * failing: the circuit stays open and the next probe waits. Every other delivery waiting for the
 * endpoint must keep waiting, not go out one after another as probes.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { EngineEvent } from "../../src/engine/events.js";
import { FakeClock } from "../support/fake-clock.js";
import { settle, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver } from "../support/receiver.js";

const MIN = 60_000;
const probeAnswered = (e: EngineEvent) =>
  e.type === "delivery" && e.attempt?.trigger === "probe" && e.attempt.status === 429;

describe("an open circuit whose probe is answered 429", () => {
  let h: EngineHarness;
  let rx: Receiver;
  afterEach(async () => {
    await h.close();
    await rx.close();
  });

  it("sends exactly one probe, and the next one after the probe wait, even across a restart", async () => {
    const clock = new FakeClock();
    h = await startEngine({ clock, breaker: { consecutiveFailures: 1 } });
    rx = await Receiver.start((_req, i) => ({ status: i === 0 ? 503 : 429 }));
    const ep = await h.addEndpoint(rx.url("/paced"));
    await h.post({ n: 0 });
    await h.waitFor((e) => e.type === "circuit" && e.transition.to === "open");
    for (let i = 1; i <= 5; i++) await h.post({ n: i });
    await settle();
    expect(rx.requests).toHaveLength(1);

    clock.advance(5 * MIN);
    await h.waitFor(probeAnswered);
    for (let i = 0; i < 5; i++) await settle();
    expect(rx.requests).toHaveLength(2);
    expect(await h.store.getCircuit(ep.id)).toMatchObject({
      state: "open",
      nextProbeAt: clock.now() + 5 * MIN,
      reopenCount: 0,
    });

    // The postponed probe time is the store's too.
    await h.restart();
    clock.advance(5 * MIN - 1);
    for (let i = 0; i < 3; i++) await settle();
    expect(rx.requests).toHaveLength(2);
    clock.advance(1);
    await rx.waitFor(3);
    for (let i = 0; i < 5; i++) await settle();
    expect(rx.requests).toHaveLength(3);
  });
});
