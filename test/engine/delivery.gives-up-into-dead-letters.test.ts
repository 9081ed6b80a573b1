import { afterEach, describe, expect, it } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { reached, settle, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver } from "../support/receiver.js";

describe("deliveries that cannot succeed are dead-lettered with everything a replay needs", () => {
  let h: EngineHarness;
  let rx: Receiver;
  afterEach(async () => {
    await h.close();
    await rx.close();
  });

  it("a permanent status (404) dead-letters at once, without retries", async () => {
    h = await startEngine();
    rx = await Receiver.start(() => ({ status: 404, body: "no such hook" }));
    const ep = await h.addEndpoint(rx.url("/gone"));
    const msgId = await h.post({ order: 7 }, { eventId: "evt-7", eventType: "order.shipped" });
    const dead = await h.waitFor(reached(msgId, "dead"));
    expect(rx.requests).toHaveLength(1);
    const dl = await h.store.findDeadLetterByDelivery(
      dead.type === "delivery" ? dead.deliveryId : "",
    );
    expect(dl).toMatchObject({
      endpointId: ep.id,
      messageId: msgId,
      eventId: "evt-7",
      eventType: "order.shipped",
      failureClass: "permanent",
      finalStatus: 404,
      state: "open",
    });
    expect(dl!.signatureHeaders["webhook-id"]).toBe(msgId);
    expect(dl!.signatureHeaders["webhook-signature"]).toMatch(/^v1,/);
    expect(dl!.firstAttemptAt).toBe(dl!.lastAttemptAt);
  });

  it("410 Gone disables the endpoint; its other deliveries are dead-lettered without a request", async () => {
    h = await startEngine();
    rx = await Receiver.start(() => ({ status: 410 }));
    const ep = await h.addEndpoint(rx.url("/gone"), { concurrencyLimit: 1 });
    const first = await h.post({ n: 1 });
    await h.waitFor((e) => e.type === "endpoint.disabled" && e.endpointId === ep.id);
    await h.waitFor(reached(first, "dead"));
    expect((await h.store.getEndpoint(ep.id))!.disabled).toBe(true);
    const before = rx.requests.length;
    // Claimed before the endpoint was disabled in the store: dead-lettered, not sent.
    const second = await h.post({ n: 2 });
    await settle();
    expect(rx.requests.length).toBe(before);
    expect(await h.store.listDeliveries(second)).toHaveLength(0);
  });

  it("exhausting the ladder dead-letters with class exhausted and every attempt kept", async () => {
    const clock = new FakeClock();
    h = await startEngine({ clock });
    rx = await Receiver.start(() => ({ status: 503, body: "down" }));
    const ep = await h.addEndpoint(rx.url("/down"), { retry: { delays: [1, 1], window: 60 } });
    const msgId = await h.post({ x: 1 });
    for (let i = 1; i <= 2; i++) {
      await rx.waitFor(i);
      await h.waitFor(
        (e) =>
          e.type === "delivery" &&
          e.messageId === msgId &&
          e.attempt !== null &&
          h.events.filter((x) => x.type === "delivery").length >= i,
      );
      clock.advance(1000);
    }
    const dead = await h.waitFor(reached(msgId, "dead"));
    const dl = await h.store.findDeadLetterByDelivery(
      dead.type === "delivery" ? dead.deliveryId : "",
    );
    expect(dl).toMatchObject({ failureClass: "exhausted", finalStatus: 503, endpointId: ep.id });
    expect(dl!.reason).toMatch(/all 3 attempts failed/);
    const attempts = await h.store.listAttempts({ appId: h.app.id, messageId: msgId, limit: 10 });
    expect(attempts.data).toHaveLength(3);
    expect(dl!.firstAttemptAt).toBeLessThan(dl!.lastAttemptAt!);
  });
});
