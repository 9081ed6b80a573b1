/**
 * Two loads of one endpoint's settings can overlap: the recovery timer admitting a delivery whose
 * endpoint failed to load, while a claim admits another of the same endpoint. Each found no
 * runtime when it began; the one finishing last must not replace the runtime the other made, or
 * the endpoint's requests in flight are counted on two runtimes and its concurrency limit is
 * exceeded. (The same holds for a worker declared dead while it loaded an endpoint: what it
 * was loading must not replace the runtime its new identity made meanwhile.)
 */
import { afterEach, expect, it, vi } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { reached, settle, startEngine, type EngineHarness } from "../support/engine.js";
import { GatedReceiver } from "../support/gated-receiver.js";

let h: EngineHarness;
let rx: GatedReceiver;
afterEach(async () => {
  await h.close();
  await rx.close();
});

it("keeps one runtime per endpoint, so its limit holds", async () => {
  const clock = new FakeClock();
  h = await startEngine({ clock });
  rx = await GatedReceiver.start();
  const ep = await h.addEndpoint(rx.url(), { concurrencyLimit: 1 });
  const load = h.store.getEndpoint.bind(h.store);
  let loadingAgain!: () => void;
  const secondLoad = new Promise<void>((r) => (loadingAgain = r));
  let letGo!: () => void;
  const gate = new Promise<void>((r) => (letGo = r));
  const loads = vi
    .spyOn(h.store, "getEndpoint")
    .mockRejectedValueOnce(new Error("database is locked"))
    .mockImplementationOnce(async (id) => {
      loadingAgain();
      await gate;
      return load(id);
    });

  // The first delivery's endpoint fails to load; the recovery timer loads it again, slowly.
  const first = await h.post({ n: 1 });
  await vi.waitFor(() => expect(loads).toHaveBeenCalledTimes(1), { timeout: 20_000 });
  await settle();
  clock.advance(1000);
  await secondLoad;
  // Meanwhile a second delivery is claimed, its endpoint loaded, and its request sent.
  const second = await h.post({ n: 2 });
  await rx.arrived(1);

  letGo();
  // The first delivery now waits for the endpoint's one slot, or (wrongly) goes out beside it.
  while (rx.ids.length < 2 && h.engine.endpointStatus(ep.id)?.queued !== 1) await settle();
  expect(rx.ids).toHaveLength(1);
  expect(h.engine.endpointStatus(ep.id)).toMatchObject({ inFlight: 1, queued: 1 });

  rx.release();
  for (const msg of [first, second]) await h.waitFor(reached(msg, "succeeded"));
  expect(rx.ids).toHaveLength(2);
});
