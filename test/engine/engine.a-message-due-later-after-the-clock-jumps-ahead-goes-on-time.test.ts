/**
 * A message with a later deliverAt, accepted while the engine is quiet, brings the engine's
 * timer forward to its due time. The timer's time was kept by the wall clock, so once the clock
 * had jumped ahead (NTP stepping it, a VM resumed) the timer looked due already and was left as
 * it was: the message went out only when that timer fired, up to a minute late.
 */
import { afterEach, describe, expect, it } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { reached, settle, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver } from "../support/receiver.js";

const HOUR = 3_600_000;

describe("a message due in 5 s, accepted after the clock jumped an hour ahead", () => {
  let h: EngineHarness | undefined;
  let rx: Receiver | undefined;
  afterEach(async () => {
    await h?.close();
    await rx?.close();
  });

  it("is sent at its due time", async () => {
    const clock = new FakeClock();
    h = await startEngine({ clock });
    rx = await Receiver.start(() => ({ status: 200 }));
    await h.addEndpoint(rx.url("/later"));
    const first = await h.post({ n: 1 });
    await h.waitFor(reached(first, "succeeded"));
    await settle();

    clock.step(HOUR);
    const dueAt = clock.now() + 5_000;
    const later = await h.post({ n: 2 }, { dueAt, wake: false });
    h.engine.wake(dueAt);
    await settle();
    clock.advance(4_000);
    await settle();
    expect(rx.requests).toHaveLength(1);
    clock.advance(1_500);
    await h.waitFor(reached(later, "succeeded"), 2_000);
    expect(rx.requests).toHaveLength(2);
  });
});
