/**
 * A resend of a message whose delivery to the endpoint waits for a retry sends that retry now. It
 * used to add a delivery beside it: the resend succeeded, every status said so, and the waiting
 * retry still went out at its time, the same message a third time.
 */
import { afterEach, describe, expect, it } from "vitest";
import { deliveryOf, startHooklineOn, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe.each(["sqlite", "postgres"] as const)("on %s, a resend while a retry waits", (kind) => {
  let t: TestHookline | undefined;
  let rx: Receiver | undefined;
  afterEach(async () => {
    await t?.stop();
    await rx?.close();
  });

  it("sends the waiting delivery now and leaves nothing to send again", async () => {
    t = await startHooklineOn(kind);
    rx = await Receiver.start(() => ({ status: 500 }));
    await t.svix.application.create({ name: "Acme", uid: "acme" });
    const ep = await t.svix.endpoint.create("acme", { url: rx.url("/hook") });
    // The retry waits an hour, so only the resend can send it within the test.
    await t.api("PUT", `/api/v1/app/acme/endpoint/${ep.id}/delivery-policy`, {
      retry: { delays: [3600, 3600], window: 86_400 },
    });
    const msg = await t.svix.message.create("acme", { eventType: "a.b", payload: { n: 1 } });
    await t.waitFor(deliveryOf(msg.id, "pending", ep.id));

    rx.behave(() => ({ status: 200 }));
    await t.svix.messageAttempt.resend("acme", msg.id, ep.id);
    await t.waitFor(deliveryOf(msg.id, "succeeded", ep.id));
    await rx.waitFor(2, "/hook");
    expect(rx.on("/hook").map((r) => r.headers["webhook-id"])).toEqual([msg.id, msg.id]);

    // One delivery, finished: no retry is left waiting to send the message a third time.
    const deliveries = await t.hookline.store.listDeliveries(msg.id);
    expect(deliveries.map((d) => [d.state, d.attemptCount])).toEqual([["succeeded", 2]]);
    const [destination] = (await t.svix.messageAttempt.listAttemptedDestinations("acme", msg.id))
      .data;
    expect(destination).toMatchObject({ id: ep.id, statusText: "success" });
    expect(destination!.nextAttempt ?? null).toBeNull();
  });
});
