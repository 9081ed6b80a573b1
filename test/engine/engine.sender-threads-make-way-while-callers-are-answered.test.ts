/**
 * The engine tells its sender when API callers come and when they have gone, so that sender
 * threads run below the main thread only while there are callers to make way for: delivering
 * a backlog that nobody is posting to gets its whole share of the cores.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ThreadedSender } from "../../src/engine/sender-threads.js";
import { settle, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver } from "../support/receiver.js";

/** A real threaded sender that also notes what the engine told it. */
class NotingSender extends ThreadedSender {
  readonly told: boolean[] = [];
  override yieldToCallers(yielding: boolean): void {
    this.told.push(yielding);
    super.yieldToCallers(yielding);
  }
}

describe("sender threads and the API's callers", () => {
  let h: EngineHarness;
  let rx: Receiver;
  afterEach(async () => {
    // The receiver first: the held request ends with it, so the engine need not wait it out.
    await rx.close();
    await h.close();
  });

  it("makes way while callers post, and stops once they have gone", async () => {
    const sender = new NotingSender({ threads: 1 });
    h = await startEngine({ sender, loopBudget: { everyMs: 20 } });
    rx = await Receiver.start(() => ({ status: 200, delayMs: 60_000 }));
    await h.addEndpoint(rx.url("/held"));
    // The budget is judged while the engine holds something: one delivery whose answer is held.
    await h.post({ n: 1 });
    await rx.waitFor(1, "/held");
    expect(sender.told).toEqual([]);

    h.engine.callerWaited(1);
    expect(sender.told).toEqual([true]);
    h.engine.callerWaited(1);
    expect(sender.told).toEqual([true]);
    while (sender.told.length < 2) await settle();
    expect(sender.told).toEqual([true, false]);
  });
});
