/**
 * A message's destinations say why hookline gave up on a delivery (`delivery.reason`) also when
 * its endpoint was at its dead-letter depth cap: no record was kept, but the tombstone that says
 * so keeps the reason. The field was null there, and the portal told a delivery given up unsent,
 * its endpoint disabled while a retry waited, that no retry was left, the very words the field
 * was added to correct, at an endpoint down long enough to fill its queue. On both stores, with an
 * application's token.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveryOf, startHooklineOn, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let h: TestHookline;
  let rx: Receiver;

  beforeAll(async () => {
    // The first message is refused for good; every other one fails and is retried.
    rx = await Receiver.start((req) =>
      req.body.toString().includes("first")
        ? { status: 400, body: "bad" }
        : { status: 503, body: "down" },
    );
    h = await startHooklineOn(kind, { HOOKLINE_DLQ_MAX_PER_ENDPOINT: "1" });
  });
  afterAll(async () => {
    await h?.stop();
    await rx?.close();
  });

  it("gives a delivery given up past the cap its tombstone's reason", async () => {
    const appId = (await h.svix.application.create({ name: "Acme" })).id;
    const ep = await h.api<{ id: string }>("POST", `/api/v1/app/${appId}/endpoint`, {
      url: rx.url("/hook"),
      deliveryPolicy: { retry: { delays: [3, 600, 600], window: 3600 } },
    });
    expect(ep.status).toBe(201);
    const send = async (payload: object) =>
      (await h.svix.message.create(appId, { eventType: "order.paid", payload })).id;
    // Its one open record fills the endpoint's queue.
    const first = await send({ first: true });
    await h.waitFor(deliveryOf(first, "dead", ep.body.id));
    const msgId = await send({ second: true });
    await h.waitFor(deliveryOf(msgId, "pending", ep.body.id));
    // Disabled while its retry (3 s on) waits: given up unsent, past the cap, when it comes.
    await h.svix.endpoint.patch(appId, ep.body.id, { disabled: true });
    await h.waitFor(deliveryOf(msgId, "dead", ep.body.id), 10_000);
    await h.svix.endpoint.patch(appId, ep.body.id, { disabled: false });
    const kept = await h.api<{ data: unknown[] }>("GET", `/api/v1/dlq?message_id=${msgId}`);
    expect(kept.body.data).toEqual([]);

    const { token } = await h.svix.authentication.appPortalAccess(appId, { expiry: 600 });
    const res = await fetch(`${h.url}/api/v1/app/${appId}/msg/${msgId}/endpoint`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: { delivery: object }[] };
    expect(data[0]!.delivery).toMatchObject({
      state: "dead",
      attemptCount: 1,
      reason: "endpoint disabled",
    });
  });
});
