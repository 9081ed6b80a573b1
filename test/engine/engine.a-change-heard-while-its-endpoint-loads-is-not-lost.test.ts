/**
 * The engine reads an endpoint's settings when it first meets it, and again once a change marks
 * it stale. A change committed while such a read is under way (the read saw the settings before
 * it; on PostgreSQL, or from another process of a fleet, the read is a round trip) is heard while
 * the read's answer is still on its way. That answer must not be taken as current: the messages
 * posted after the change must go where the change says, not to the old URL for as long as the
 * engine keeps the endpoint. The same holds for its application's settings, which every endpoint
 * of the application shares.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Endpoint } from "../../src/domain/types.js";
import { reached, settle, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver } from "../support/receiver.js";

describe("a change heard while the engine reads its endpoint", () => {
  let h: EngineHarness;
  let rx: Receiver;
  afterEach(async () => {
    await h.close();
    await rx.close();
  });

  /** Holds the next read of the endpoint once it has read it, until the test lets it go. */
  function holdNextRead(): { reading: Promise<void>; letGo: () => void } {
    const read = h.store.getEndpoint.bind(h.store);
    let readIt!: () => void;
    const reading = new Promise<void>((r) => (readIt = r));
    let letGo!: () => void;
    const gate = new Promise<void>((r) => (letGo = r));
    vi.spyOn(h.store, "getEndpoint").mockImplementationOnce(async (id) => {
      const seen = await read(id);
      readIt();
      await gate;
      return seen;
    });
    return { reading, letGo };
  }

  async function moveTo(ep: Endpoint, path: string): Promise<void> {
    const moved = { ...ep, url: rx.url(path), updatedAt: ep.updatedAt + 1 };
    expect(await h.store.updateEndpoint(moved, ep.updatedAt)).toBe(true);
    h.engine.invalidateEndpoint(ep.id);
  }

  it("when it first meets the endpoint", async () => {
    h = await startEngine();
    rx = await Receiver.start();
    const ep = await h.addEndpoint(rx.url("/old"));
    await settle();
    const { reading, letGo } = holdNextRead();
    const first = await h.post({ n: 1 });
    await reading;
    await moveTo(ep, "/new");
    letGo();
    await h.waitFor(reached(first, "succeeded"));

    const second = await h.post({ n: 2 });
    await h.waitFor(reached(second, "succeeded"));
    expect(rx.on("/new").map((r) => r.headers["webhook-id"])).toContain(second);
    expect(rx.on("/old").map((r) => r.headers["webhook-id"])).not.toContain(second);
  });

  it("when the change is to its application", async () => {
    h = await startEngine();
    rx = await Receiver.start();
    const a = await h.addEndpoint(rx.url("/a"));
    const b = await h.addEndpoint(rx.url("/b"));
    await settle();
    const read = h.store.findApplication.bind(h.store);
    let readIt!: () => void;
    const reading = new Promise<void>((r) => (readIt = r));
    let letGo!: () => void;
    const gate = new Promise<void>((r) => (letGo = r));
    vi.spyOn(h.store, "findApplication").mockImplementationOnce(async (id) => {
      const seen = await read(id);
      readIt();
      await gate;
      return seen;
    });
    const first = await h.post({ n: 1 });
    await reading;
    const policy = { concurrencyLimit: 3 };
    const changed = { ...h.app, deliveryPolicy: policy, updatedAt: h.app.updatedAt + 1 };
    expect(await h.store.updateApplication(changed, h.app.updatedAt)).toBe(true);
    h.engine.invalidateApplication(h.app.id);
    letGo();
    for (const ep of [a, b]) {
      await h.waitFor(
        (e) => e.type === "delivery" && reached(first, "succeeded")(e) && e.endpointId === ep.id,
      );
    }
    expect(h.engine.endpointStatus(a.id)?.limit).toBe(3);
    expect(h.engine.endpointStatus(b.id)?.limit).toBe(3);
  });

  it("when it reads it again after an earlier change", async () => {
    h = await startEngine();
    rx = await Receiver.start();
    const ep = await h.addEndpoint(rx.url("/a"));
    const first = await h.post({ n: 1 });
    await h.waitFor(reached(first, "succeeded"));

    await moveTo(ep, "/b");
    const b = (await h.store.getEndpoint(ep.id))!;
    const { reading, letGo } = holdNextRead();
    const second = await h.post({ n: 2 });
    await reading;
    await moveTo(b, "/c");
    letGo();
    await h.waitFor(reached(second, "succeeded"));

    const third = await h.post({ n: 3 });
    await h.waitFor(reached(third, "succeeded"));
    expect(rx.on("/c").map((r) => r.headers["webhook-id"])).toContain(third);
  });
});
