/**
 * The engine keeps an endpoint whose circuit is open, idle or not: its probe is to come. Once the
 * endpoint is deleted no probe ever comes, and nothing would dispatch to it again to find it gone:
 * it was kept for as long as the process ran, and /metrics went on reporting its circuit open.
 */
import { afterEach, expect, it } from "vitest";
import type { EngineEvent } from "../../src/engine/events.js";
import { FakeClock } from "../support/fake-clock.js";
import { settle, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver } from "../support/receiver.js";

let h: EngineHarness;
let rx: Receiver;
afterEach(async () => {
  await h.close();
  await rx.close();
});

it("forgets a deleted endpoint left with an open circuit once it has been idle ten minutes", async () => {
  const clock = new FakeClock();
  h = await startEngine({ clock, breaker: { consecutiveFailures: 1 } });
  rx = await Receiver.start(() => ({ status: 503 }));
  // Retried only after an hour, so nothing is sent to either while the test runs.
  const policy = { retry: { delays: [3_600], window: 86_400 } };
  const ep = await h.addEndpoint(rx.url("/down"), policy);
  const other = await h.addEndpoint(rx.url("/down-too"), policy);
  const opened = (id: string) => (e: EngineEvent) =>
    e.type === "circuit" && e.endpointId === id && e.transition.to === "open";
  const bothOpen = Promise.all([h.waitFor(opened(ep.id)), h.waitFor(opened(other.id))]);
  await h.post({ n: 1 });
  await bothOpen;
  await settle();
  expect(h.engine.endpointStatus(ep.id)?.circuit.state).toBe("open");

  await h.store.deleteEndpoint(h.app.id, ep.id);
  h.engine.invalidateEndpoint(ep.id);
  clock.advance(11 * 60_000);
  h.engine.wake(clock.now());
  await settle();

  expect(h.engine.endpointStatus(ep.id)).toBeNull();
  // An endpoint that is still there keeps its open circuit in hand, as before.
  expect(h.engine.endpointStatus(other.id)?.circuit.state).toBe("open");
});
