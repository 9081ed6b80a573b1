/**
 * An endpoint's rate limit (Svix's `rateLimit`, newer clients' `throttleRate`), or its
 * application's when it sets none (an endpoint's 0 is no limit), is the most requests a second hookline starts to it. It used to
 * be stored and shown but never applied: a receiver that asked for 5 a second got everything at
 * once. On a fake clock: what arrives at each step of time is what the limit lets through.
 */
import { afterEach, describe, expect, it } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { reached, settle, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver } from "../support/receiver.js";

let h: EngineHarness;
let rx: Receiver;
afterEach(async () => {
  await h.close();
  await rx.close();
});

/**
 * Lets the engine run its turns until the receiver count stops moving. Quiet for 100 ms is not
 * proof that a request due is not on its way on a busy machine: wait for what is due first
 * (`rx.waitFor`), then use this to see that nothing more comes.
 */
async function quiet(): Promise<number> {
  let seen = -1;
  while (seen !== rx.requests.length) {
    seen = rx.requests.length;
    for (let i = 0; i < 5; i++) await settle();
  }
  return seen;
}

describe("an endpoint's rate limit", () => {
  it("starts at most that many requests a second, and the rest follow at its pace", async () => {
    const clock = new FakeClock();
    h = await startEngine({ clock });
    rx = await Receiver.start();
    await h.addEndpoint(rx.url("/slow"), undefined, { rateLimit: 5 });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await h.post({ i }));

    await rx.waitFor(1);
    expect(await quiet()).toBe(1);
    // One every 200 ms.
    for (let step = 1; step <= 5; step++) {
      clock.advance(200);
      await rx.waitFor(1 + step);
      expect(await quiet()).toBe(1 + step);
    }
    for (let step = 6; step <= 11; step++) {
      clock.advance(200);
      await rx.waitFor(1 + step);
      expect(await quiet()).toBe(1 + step);
    }
    await h.waitFor(reached(ids[11]!, "succeeded"));
    expect(rx.requests).toHaveLength(12);
  });

  it("of the application applies to each endpoint that sets none of its own", async () => {
    const clock = new FakeClock();
    h = await startEngine({ clock });
    rx = await Receiver.start();
    await h.store.updateApplication({ ...h.app, rateLimit: 2, updatedAt: h.app.updatedAt + 1 });
    await h.addEndpoint(rx.url("/a"));
    await h.addEndpoint(rx.url("/b"), undefined, { rateLimit: 1000 });
    await h.addEndpoint(rx.url("/c"), undefined, { rateLimit: 0 });
    for (let i = 0; i < 6; i++) await h.post({ i });

    await rx.waitFor(13);
    expect(await quiet()).toBe(13);
    // Every request to /b at once (its own limit) and to /c (its 0 lifts the application's); one
    // to /a (its application's, 2 a second).
    expect(rx.on("/b")).toHaveLength(6);
    expect(rx.on("/c")).toHaveLength(6);
    expect(rx.on("/a")).toHaveLength(1);
    clock.advance(500);
    await rx.waitFor(14);
    expect(await quiet()).toBe(14);
  });

  it("changed through the API applies from the next request", async () => {
    const clock = new FakeClock();
    h = await startEngine({ clock });
    rx = await Receiver.start();
    const ep = await h.addEndpoint(rx.url("/x"), undefined, { rateLimit: 1 });
    for (let i = 0; i < 4; i++) await h.post({ i });
    await rx.waitFor(1);
    expect(await quiet()).toBe(1);

    await h.store.updateEndpoint({ ...ep, rateLimit: null, updatedAt: ep.updatedAt + 1 });
    h.engine.invalidateEndpoint(ep.id);
    clock.advance(1_000);
    await rx.waitFor(4);
    expect(await quiet()).toBe(4);
  });
});
