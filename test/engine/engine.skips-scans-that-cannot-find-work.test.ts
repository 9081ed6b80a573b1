/**
 * While a full endpoint drains a backlog, every freed slot wakes the engine to refill it. A scan
 * for other work right after one that found nothing, with nothing announced since and nothing
 * falling due meanwhile, cannot find anything either; the engine skips it. These tests hold it to
 * skipping only those: work announced or falling due in the meantime is still found on time.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { reached, settle, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver } from "../support/receiver.js";

describe("scans that cannot find work", () => {
  let h: EngineHarness;
  let rx: Receiver;
  afterEach(async () => {
    await h.close();
    await rx.close();
  });

  it("are not run while a full endpoint's freed slots are refilled", async () => {
    h = await startEngine();
    rx = await Receiver.start();
    await h.addEndpoint(rx.url("/hook"), { concurrencyLimit: 2 });
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) ids.push(await h.post({ i }, { wake: false }));
    // The engine's scans (claims not aimed at one endpoint) from now on.
    const scans = vi.spyOn(h.store, "scanDue");
    h.engine.wake();
    for (const id of ids) await h.waitFor(reached(id, "succeeded"), 10_000);
    expect(rx.requests).toHaveLength(60);
    // One scan finds the backlog and one finds nothing more; each of the 58 refills used to scan.
    expect(scans.mock.calls.length).toBeLessThanOrEqual(3);
  });

  it("still finds work announced while quiet, due before what was due next", async () => {
    const clock = new FakeClock();
    h = await startEngine({ clock });
    rx = await Receiver.start();
    await h.addEndpoint(rx.url("/hook"));
    const t0 = clock.now();
    const later = await h.post({ n: "later" }, { dueAt: t0 + 10_000, wake: false });
    h.engine.wake(t0 + 10_000);
    await settle();
    // The engine now knows nothing falls due before t0 + 10 s.
    const sooner = await h.post({ n: "sooner" }, { dueAt: t0 + 2_000, wake: false });
    h.engine.wake(t0 + 2_000);
    await settle();

    clock.advance(2_000);
    await h.waitFor(reached(sooner, "succeeded"));
    expect(rx.requests).toHaveLength(1);
    clock.advance(8_000);
    await h.waitFor(reached(later, "succeeded"));
    expect(rx.requests).toHaveLength(2);
  });

  it("are not run for messages announced while quiet that fall due only later", async () => {
    const clock = new FakeClock();
    h = await startEngine({ clock });
    rx = await Receiver.start();
    await h.addEndpoint(rx.url("/hook"));
    const t0 = clock.now();
    const last = await h.post({ n: "last" }, { dueAt: t0 + 9_000, wake: false });
    h.engine.wake(t0 + 9_000);
    await settle();
    // Quiet now: nothing falls due before t0 + 9 s. Messages due later, as a caller posting with
    // deliverAt makes them, bring the timer forward without a scan each.
    const scans = vi.spyOn(h.store, "scanDue");
    const later: string[] = [];
    for (const at of [5_000, 3_000, 7_000, 3_000]) {
      later.push(await h.post({ at }, { dueAt: t0 + at, wake: false }));
      h.engine.wake(t0 + at);
      await settle();
    }
    expect(scans).not.toHaveBeenCalled();

    clock.advance(3_000);
    await h.waitFor(reached(later[1]!, "succeeded"));
    await h.waitFor(reached(later[3]!, "succeeded"));
    expect(rx.requests).toHaveLength(2);
    clock.advance(2_000);
    await h.waitFor(reached(later[0]!, "succeeded"));
    clock.advance(2_000);
    await h.waitFor(reached(later[2]!, "succeeded"));
    expect(rx.requests).toHaveLength(4);
    clock.advance(2_000);
    await h.waitFor(reached(last, "succeeded"));
    expect(rx.requests).toHaveLength(5);
  });

  it("still finds work that falls due later, without being announced again", async () => {
    const clock = new FakeClock();
    h = await startEngine({ clock });
    rx = await Receiver.start();
    await h.addEndpoint(rx.url("/hook"), { concurrencyLimit: 1 });
    const t0 = clock.now();
    // Known to the store before the engine's scans; announced once, long before it is due.
    const scheduled = await h.post({ n: "scheduled" }, { dueAt: t0 + 3_000, wake: false });
    const now = [];
    for (let i = 0; i < 5; i++) now.push(await h.post({ i }, { wake: false }));
    h.engine.wake();
    for (const id of now) await h.waitFor(reached(id, "succeeded"));
    await settle();
    expect(rx.requests).toHaveLength(5);

    clock.advance(3_000);
    await h.waitFor(reached(scheduled, "succeeded"));
    expect(rx.requests).toHaveLength(6);
  });
});
