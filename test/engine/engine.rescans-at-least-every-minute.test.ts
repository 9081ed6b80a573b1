import { afterEach, describe, expect, it } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { reached, settle, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver } from "../support/receiver.js";

describe("the engine's safety net", () => {
  let h: EngineHarness;
  let rx: Receiver;
  afterEach(async () => {
    await h.close();
    await rx.close();
  });

  it("finds, within a minute, a delivery made due behind its scan without being told", async () => {
    const clock = new FakeClock();
    h = await startEngine({ clock });
    rx = await Receiver.start();
    await h.addEndpoint(rx.url("/hook"));
    const first = await h.post({ n: 1 });
    await h.waitFor(reached(first, "succeeded"));
    clock.advance(1_000);
    await settle();

    // Accepted through the store, due in the past, and the engine is not woken.
    const hidden = await h.post({}, { dueAt: clock.now() - 10_000, wake: false });
    await settle();
    expect(rx.requests).toHaveLength(1);
    clock.advance(60_000);
    await h.waitFor(reached(hidden, "succeeded"));
    expect(rx.requests).toHaveLength(2);
  });

  it("keeps that minute by the clock, however often it is woken meanwhile", async () => {
    const clock = new FakeClock();
    h = await startEngine({ clock });
    rx = await Receiver.start();
    await h.addEndpoint(rx.url("/hook"));
    const first = await h.post({ n: 1 });
    await h.waitFor(reached(first, "succeeded"));
    const hidden = await h.post({}, { dueAt: clock.now() - 10_000, wake: false });
    // Wake-ups for later work every 10 s: each one re-arms the engine's timer.
    for (let i = 0; i < 7; i++) {
      clock.advance(10_000);
      h.engine.wake(clock.now());
      await settle();
    }
    await h.waitFor(reached(hidden, "succeeded"));
  });

  it("keeps it after the clock is set back, rather than waiting for the old time", async () => {
    const clock = new FakeClock();
    h = await startEngine({ clock });
    rx = await Receiver.start();
    await h.addEndpoint(rx.url("/hook"));
    const first = await h.post({ n: 1 });
    await h.waitFor(reached(first, "succeeded"));
    clock.advance(1_000);
    await settle();

    // NTP (or a restored VM) sets the clock back an hour; then a delivery is made due unsaid.
    clock.step(-3_600_000);
    const hidden = await h.post({}, { dueAt: clock.now() - 10_000, wake: false });
    await settle();
    clock.advance(60_000);
    await h.waitFor(reached(hidden, "succeeded"), 2_000);
    expect(rx.requests).toHaveLength(2);
  });
});
