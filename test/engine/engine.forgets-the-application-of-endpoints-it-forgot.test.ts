/**
 * The engine forgets endpoints idle for ten minutes, so a process that has met tens of thousands
 * of them does not keep them all. The application each was loaded with must go too: kept, a
 * process that has delivered for every one of 100,000 applications holds all of them (about
 * 35 MB) for as long as it runs, though it holds none of their endpoints.
 */
import { afterEach, expect, it, vi } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { reached, settle, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver } from "../support/receiver.js";

let h: EngineHarness;
let rx: Receiver;
afterEach(async () => {
  await h.close();
  await rx.close();
});

it("reads an application again once every endpoint it was read for has been forgotten", async () => {
  const clock = new FakeClock();
  h = await startEngine({ clock });
  rx = await Receiver.start();
  const ep = await h.addEndpoint(rx.url("/hook"));
  const reads = vi.spyOn(h.store, "findApplication");
  await h.waitFor(reached(await h.post({ n: 1 }), "succeeded"));
  expect(reads.mock.calls.filter(([id]) => id === h.app.id)).toHaveLength(1);

  clock.advance(11 * 60_000);
  h.engine.wake(clock.now());
  await settle();
  expect(h.engine.endpointStatus(ep.id)).toBeNull();

  await h.waitFor(reached(await h.post({ n: 2 }), "succeeded"));
  expect(reads.mock.calls.filter(([id]) => id === h.app.id)).toHaveLength(2);
});
