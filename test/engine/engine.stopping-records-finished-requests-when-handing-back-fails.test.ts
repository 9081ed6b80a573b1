/**
 * Stopping hands back the deliveries waiting in memory, then lets the requests out finish and
 * writes their outcomes. A store that fails the hand-back must not cut that short: the request
 * out is answered and recorded (not sent again after restart), and what waited stays claimed in
 * the store, to be sent after restart.
 */
import { afterEach, expect, it, vi } from "vitest";
import { reached, settle, startEngine, type EngineHarness } from "../support/engine.js";
import { GatedReceiver } from "../support/gated-receiver.js";

let h: EngineHarness;
let rx: GatedReceiver;
afterEach(async () => {
  await h.close();
  await rx.close();
});

it("records the answered request though handing back the waiting delivery failed", async () => {
  h = await startEngine();
  rx = await GatedReceiver.start();
  await h.addEndpoint(rx.url(), { concurrencyLimit: 1 });
  await settle();
  // One claim takes both: the first is sent, the second waits in memory behind the limit of 1.
  const out = await h.post({ n: 1 }, { wake: false });
  const waiting = await h.post({ n: 2 });
  await rx.arrived(1);
  await settle();
  const handBack = vi
    .spyOn(h.store, "releaseDeliveries")
    .mockRejectedValueOnce(new Error("disk I/O error"));
  const stopped = h.engine.stop();
  await settle();
  rx.release();
  await expect(stopped).resolves.toBeUndefined();
  expect(handBack).toHaveBeenCalledTimes(1);
  expect(handBack.mock.calls[0]![0]).toHaveLength(1);
  expect(h.events.some(reached(out, "succeeded"))).toBe(true);
  expect((await h.store.listDeliveries(out))[0]).toMatchObject({ state: "succeeded" });
  expect((await h.store.listDeliveries(waiting))[0]).toMatchObject({ state: "inflight" });
  expect(rx.ids).toHaveLength(1);
});
