/**
 * Putting an open circuit's waiting deliveries back until its probe arms the engine's timer for
 * the probe. That timer is the engine's only one: armed for a probe minutes away, it must not
 * replace the one set for another endpoint's delivery due sooner (a retry, a deliverAt). In a
 * quiet hookline that delivery would wait for the probe: up to an hour, or the 4 hours of a
 * rate-limited probe's Retry-After. The store's write may end after the dispatcher armed its
 * timer (a round trip on PostgreSQL): the test holds it back.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { reached, settle, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver } from "../support/receiver.js";

describe("an endpoint's circuit opening while another's delivery is due soon", () => {
  let h: EngineHarness;
  let rx: Receiver;
  afterEach(async () => {
    await h.close();
    await rx.close();
  });

  it("sends the other endpoint's delivery when it is due, not at the probe", async () => {
    const clock = new FakeClock();
    h = await startEngine({ clock, breaker: { consecutiveFailures: 1 } });
    rx = await Receiver.start((req) => ({ status: req.path === "/down" ? 503 : 200 }));
    await h.addEndpoint(rx.url("/up"));
    const soon = await h.post({ n: 0 }, { dueAt: clock.now() + 30_000, wake: false });
    await h.addEndpoint(rx.url("/down"), { concurrencyLimit: 1 });

    // The write that puts /down's waiting delivery back until the probe ends late.
    const release = h.store.releaseDeliveries.bind(h.store);
    let writeEnds!: () => void;
    const written = new Promise<void>((r) => (writeEnds = r));
    vi.spyOn(h.store, "releaseDeliveries").mockImplementationOnce(async (releases) => {
      await written;
      return release(releases);
    });
    // Two messages for both endpoints: /down sends one (which fails and opens its circuit) and
    // holds the other in its queue.
    await h.post({ n: 1 }, { wake: false });
    await h.post({ n: 2 });
    await h.waitFor((e) => e.type === "circuit" && e.transition.to === "open");
    for (let i = 0; i < 3; i++) await settle();
    writeEnds();
    for (let i = 0; i < 3; i++) await settle();
    expect(rx.requests.filter((r) => r.path === "/up")).toHaveLength(2);

    clock.advance(31_000);
    await h.waitFor(reached(soon, "succeeded"));
    expect(rx.requests.filter((r) => r.path === "/up")).toHaveLength(3);
  });
});
