/**
 * A single replay listens for its outcome before it queues, so a quick one cannot be missed. When
 * the store fails while queueing, the request answers the failure, and the listener (and its
 * timer, the endpoint's request timeout and more) goes with it instead of lingering.
 */
import { afterEach, expect, it, vi } from "vitest";
import { anEndpoint, deadLetters } from "../support/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

let h: TestHookline;
let rx: Receiver;
afterEach(async () => {
  await h.stop();
  await rx.close();
});

it("a store failure while queueing the replay ends its wait for an outcome", async () => {
  h = await startHookline();
  rx = await Receiver.start(() => ({ status: 500 }));
  const ep = await anEndpoint(h, rx.url("/down"));
  const [record] = await deadLetters(h, ep, 1);

  const events = h.hookline.engine.events;
  const offs: ReturnType<typeof vi.fn>[] = [];
  const on = events.on.bind(events);
  vi.spyOn(events, "on").mockImplementation((listener) => {
    const off = vi.fn(on(listener));
    offs.push(off);
    return off;
  });
  vi.spyOn(h.hookline.store, "enqueueReplay").mockRejectedValueOnce(new Error("disk I/O error"));

  const res = await h.api("POST", `/api/v1/dlq/${record!.id}/replay`, {});
  expect(res.status).toBeGreaterThanOrEqual(500);
  expect(offs).toHaveLength(1);
  expect(offs[0]).toHaveBeenCalledTimes(1);
});
