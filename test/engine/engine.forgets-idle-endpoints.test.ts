import { afterEach, describe, expect, it } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { reached, settle, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver } from "../support/receiver.js";

describe("the engine's memory of endpoints", () => {
  let h: EngineHarness;
  let rx: Receiver;
  afterEach(async () => {
    await h.close();
    await rx.close();
  });

  it("forgets an endpoint idle for ten minutes, and loads it again when work comes", async () => {
    const clock = new FakeClock();
    h = await startEngine({ clock });
    rx = await Receiver.start();
    const ep = await h.addEndpoint(rx.url("/hook"));
    await h.waitFor(reached(await h.post({ n: 1 }), "succeeded"));
    expect(h.engine.endpointStatus(ep.id)).not.toBeNull();

    clock.advance(9 * 60_000);
    h.engine.wake(clock.now());
    await settle();
    expect(h.engine.endpointStatus(ep.id)).not.toBeNull();

    clock.advance(2 * 60_000);
    h.engine.wake(clock.now());
    await settle();
    expect(h.engine.endpointStatus(ep.id)).toBeNull();

    await h.waitFor(reached(await h.post({ n: 2 }), "succeeded"));
    expect(rx.requests).toHaveLength(2);
    expect(h.engine.endpointStatus(ep.id)).not.toBeNull();
  });
});
