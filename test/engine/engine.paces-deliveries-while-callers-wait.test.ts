/**
 * While API callers wait too long for their commits, the engine starts deliveries no faster than
 * its loop budget's pace, whatever its endpoints' limits would allow; once callers stop waiting,
 * the rest go at once. The pace's tokens come back on the engine's clock, held still here, so
 * what may start is counted, not timed.
 */
import { afterEach, describe, expect, it } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { reached, settle, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver, type Reply } from "../support/receiver.js";

describe("delivery while API callers wait", () => {
  let h: EngineHarness;
  let rx: Receiver;
  let callers: NodeJS.Timeout | undefined;
  afterEach(async () => {
    clearInterval(callers);
    // The receiver first: the held request ends with it, so the engine need not wait it out.
    await rx.close();
    await h.close();
  });

  /**
   * An engine paced at 20 deliveries a second (one every 50 ms of its clock) by callers who keep
   * waiting too long, about 16 a second (the pace never goes below half the messages posted),
   * with an endpoint taking "paced" messages at /hook, answered as `reply` says.
   */
  async function pacedEngine(reply: (index: number) => Reply = () => ({ status: 200 })) {
    const clock = new FakeClock();
    h = await startEngine({ clock, loopBudget: { minPace: 20 } });
    rx = await Receiver.start((req, i) =>
      req.path === "/held" ? { status: 200, delayMs: 60_000 } : reply(i),
    );
    await h.addEndpoint(rx.url("/held"), undefined, { filterTypes: ["held"] });
    await h.addEndpoint(rx.url("/hook"), undefined, { filterTypes: ["paced"] });
    callers = setInterval(() => h.engine.callerWaited(50), 60);
    // The budget is judged while the engine holds something: one delivery whose answer is held.
    await h.post({ n: "held" }, { eventType: "held" });
    await rx.waitFor(1, "/held");
    while (!(h.engine.deliveryBudget().pace <= 40)) await settle();
    return clock;
  }

  /** Callers are answered quickly again: the next judgement lifts the pace. */
  async function callersAnswered() {
    clearInterval(callers);
    while (h.engine.deliveryBudget().pace !== Number.POSITIVE_INFINITY) await settle();
  }

  it("starts deliveries at the pace, and the rest once callers are answered again", async () => {
    const clock = await pacedEngine();
    // Only the first delivery to the free endpoint may start now, whatever its limit of 100.
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(await h.post({ i }, { eventType: "paced" }));
    await rx.waitFor(1, "/hook");
    await settle();
    expect(rx.on("/hook")).toHaveLength(1);
    // Each 50 ms of the engine's clock lets one more start.
    for (let n = 2; n <= 4; n++) {
      clock.advance(50);
      await rx.waitFor(n, "/hook");
      await settle();
      expect(rx.on("/hook")).toHaveLength(n);
    }

    // What waits goes once the pace is lifted (at its next token's time, the timer's).
    await callersAnswered();
    clock.advance(50);
    for (const id of ids) await h.waitFor(reached(id, "succeeded"));
    expect(rx.on("/hook")).toHaveLength(10);
  });

  it("sends what waited for the pace as soon as it is lifted, not at the pace's timer", async () => {
    await pacedEngine();
    // One goes; the other two wait for the pace's timer, on a clock that stands still.
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await h.post({ i }, { eventType: "paced" }));
    await rx.waitFor(1, "/hook");
    await settle();
    expect(rx.on("/hook")).toHaveLength(1);
    await callersAnswered();
    for (const id of ids) await h.waitFor(reached(id, "succeeded"));
    expect(rx.on("/hook")).toHaveLength(3);
  });

  it("claims what was left in the store while others waited for the pace, once none waits", async () => {
    // The first request to /hook (the second of all) is answered late; the engine goes on.
    await pacedEngine((i) => ({ status: 200, delayMs: i === 1 ? 300 : 0 }));
    // One goes, two wait for the pace; those posted then are left in the store, unclaimed.
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await h.post({ i }, { eventType: "paced" }));
    await rx.waitFor(1, "/hook");
    for (let i = 3; i < 7; i++) ids.push(await h.post({ i }, { eventType: "paced" }));
    await settle();
    expect(rx.on("/hook")).toHaveLength(1);

    // The pace lifts; the late answer's endpoint sends its two, and nothing waits for the pace
    // any more. The pace's clock stands still: what was left must not wait for its timer.
    await callersAnswered();
    for (const id of ids) await h.waitFor(reached(id, "succeeded"));
    expect(rx.on("/hook")).toHaveLength(7);
  });
});
