/**
 * A rate-limited endpoint's deliveries wait for its rate in the store, not in the engine's hands:
 * hookline holds one second of them at most (delivery.md, "Rate limits"). One claim used to bring
 * a whole batch of them (256), a commit of accepted messages as many as its concurrency limit,
 * and a limit lowered while deliveries waited kept them all, each then waiting for the rate under
 * claim: a few endpoints limited to a request a second filled the engine's 4,096 and held every
 * other endpoint's deliveries back. On a fake clock: what the engine holds at each step.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { newId } from "../../src/ids.js";
import { FakeClock } from "../support/fake-clock.js";
import { reached, settle, startEngine, type EngineHarness } from "../support/engine.js";
import { GatedReceiver } from "../support/gated-receiver.js";
import { Receiver } from "../support/receiver.js";

let h: EngineHarness;
let close: () => Promise<void>;
afterEach(async () => {
  await h.close();
  await close();
});

/** Lets the engine run its turns until the count of requests received stops moving. */
async function quiet(received: () => number): Promise<number> {
  let seen = -1;
  while (seen !== received()) {
    seen = received();
    for (let i = 0; i < 5; i++) await settle();
  }
  return seen;
}

/**
 * Steps the clock a request's time at a time until every message has reached its endpoint,
 * checking at each step that the engine holds no more than the rate.
 */
async function sendAll(
  clock: FakeClock,
  ids: string[],
  rate: number,
  received: () => number,
): Promise<void> {
  expect(h.engine.deliveryBudget().held).toBeLessThanOrEqual(rate);
  const first = received();
  for (let step = 1; received() < ids.length; step++) {
    expect(step).toBeLessThan(ids.length);
    clock.advance(1_000 / rate);
    // The request due now first (on a busy machine it can take longer than quiet's 100 ms to
    // arrive), then quiet: no other came with it.
    await vi.waitFor(() => expect(received()).toBeGreaterThanOrEqual(first + step), {
      timeout: 20_000,
    });
    expect(await quiet(received)).toBe(first + step);
    expect(h.engine.deliveryBudget().held).toBeLessThanOrEqual(rate);
  }
  for (const id of ids) await h.waitFor(reached(id, "succeeded"));
  expect(received()).toBe(ids.length);
}

describe("a rate-limited endpoint", () => {
  it("is claimed a second's worth at a time, the rest left in the store", async () => {
    const clock = new FakeClock();
    h = await startEngine({ clock });
    const rx = await Receiver.start();
    close = () => rx.close();
    await h.addEndpoint(rx.url("/limited"), undefined, { rateLimit: 2 });
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await h.post({ i }, { wake: false }));

    h.engine.wake();
    await rx.waitFor(1);
    expect(await quiet(() => rx.requests.length)).toBe(1);
    await sendAll(clock, ids, 2, () => rx.requests.length);
  });

  it("takes a second's worth of the messages it is given as they are accepted", async () => {
    const clock = new FakeClock();
    h = await startEngine({ clock });
    const rx = await Receiver.start();
    close = () => rx.close();
    await h.addEndpoint(rx.url("/limited"), undefined, { rateLimit: 2 });
    // Accepted together, as concurrent API requests are: one commit, handed to the engine at once.
    const ids = Array.from({ length: 20 }, () => newId("msg", clock.now()));
    await Promise.all(
      ids.map((id, i) =>
        h.store.acceptMessage({
          id,
          appId: h.app.id,
          eventType: "test.event",
          eventId: null,
          channels: null,
          tags: null,
          payload: Buffer.from(JSON.stringify({ i })),
          now: clock.now(),
          dueAt: clock.now(),
          newDeliveryId: () => newId("dlv", clock.now()),
          intake: h.engine.intake() ?? undefined,
        }),
      ),
    );
    h.engine.wake();
    await rx.waitFor(1);
    expect(await quiet(() => rx.requests.length)).toBe(1);
    await sendAll(clock, ids, 2, () => rx.requests.length);
  });

  it("given a limit while its deliveries wait, hands back what is beyond its second", async () => {
    const clock = new FakeClock();
    h = await startEngine({ clock });
    const rx = await GatedReceiver.start();
    close = () => rx.close();
    // One request at a time, the first held at the receiver: the rest wait in the engine's hands.
    const ep = await h.addEndpoint(rx.url(), { concurrencyLimit: 1 });
    // The engine's first look, at start, is over: one claim takes them all.
    await settle();
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await h.post({ i }, { wake: false }));
    h.engine.wake();
    await rx.arrived(1);
    await vi.waitFor(() => expect(h.engine.deliveryBudget().held).toBe(20), { timeout: 20_000 });

    await h.store.updateEndpoint({ ...ep, rateLimit: 2, updatedAt: ep.updatedAt + 1 });
    h.engine.invalidateEndpoint(ep.id);
    rx.release();
    await h.waitFor(reached(ids[0]!, "succeeded"));
    await quiet(() => rx.ids.length);
    await sendAll(clock, ids, 2, () => rx.ids.length);
  });
});
