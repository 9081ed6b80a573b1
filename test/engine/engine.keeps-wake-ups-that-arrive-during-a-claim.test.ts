/**
 * On PostgreSQL a claim is a round trip. A message committed while it is out, due before the point
 * the scan then reaches, was invisible to it; the wake-up that announced the message must still
 * bring it, not leave it to the once-a-minute rescan. The store here is SQLite with its claim held
 * open by the test, which is the same schedule made on purpose.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ScanResult, Store } from "../../src/store/port.js";
import { FakeClock } from "../support/fake-clock.js";
import { reached, settle, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver } from "../support/receiver.js";

describe("a wake-up that arrives while a claim is out", () => {
  let h: EngineHarness;
  let rx: Receiver;
  afterEach(async () => {
    await h.close();
    await rx.close();
  });

  it("is kept: the message it announced is claimed without waiting for the rescan", async () => {
    // The clock only moves when told, so the minute's rescan never comes to the rescue.
    const clock = new FakeClock();
    h = await startEngine({ clock });
    rx = await Receiver.start();
    await h.addEndpoint(rx.url("/hook"));
    await settle();

    // The next claim reads the store at once (seeing nothing yet) and answers only when let go.
    const scanDue = h.store.scanDue.bind(h.store);
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    let claimOut = false;
    h.store.scanDue = async (req: Parameters<Store["scanDue"]>[0]): Promise<ScanResult> => {
      const scan = await scanDue(req);
      if (!claimOut) {
        claimOut = true;
        await held;
      }
      return scan;
    };
    clock.advance(1_000);
    h.engine.wake(clock.now());
    await expect.poll(() => claimOut).toBe(true);

    // Committed while the claim is out, due before the time that claim scans up to.
    const dueAt = clock.now() - 500;
    const id = await h.post({}, { dueAt, wake: false });
    h.engine.wake(dueAt);
    letGo();

    await h.waitFor(reached(id, "succeeded"));
    expect(rx.requests).toHaveLength(1);
  });
});
