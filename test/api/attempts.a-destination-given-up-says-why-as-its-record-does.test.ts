/**
 * A message's destinations say, of a delivery hookline gave up on, why, as its dead-letter record
 * does (`delivery.reason`): an application's token (the customer portal's) cannot read the queue,
 * and the attempts alone do not tell a delivery given up unsent, its endpoint disabled while a
 * retry waited, from one whose retries ran out, so the portal said "no retry was left after
 * 1 attempt" of a delivery whose ladder had two more. A delivery not given up has none. On both
 * stores, with an application's token.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveryOf, startHooklineOn, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

interface Destination {
  url: string;
  delivery: { state: string; attemptCount: number; reason: string | null };
}

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let h: TestHookline;
  let rx: Receiver;

  beforeAll(async () => {
    rx = await Receiver.start((req) =>
      req.path === "/refuses" ? { status: 400, body: "bad" } : { status: 503, body: "down" },
    );
    h = await startHooklineOn(kind);
  });
  afterAll(async () => {
    await h?.stop();
    await rx?.close();
  });

  it("gives each destination given up on its record's reason", async () => {
    const appId = (await h.svix.application.create({ name: "Acme" })).id;
    const endpoint = async (path: string, delays: number[]) => {
      const ep = await h.api<{ id: string }>("POST", `/api/v1/app/${appId}/endpoint`, {
        url: rx.url(path),
        deliveryPolicy: { retry: { delays, window: 3600 } },
      });
      expect(ep.status).toBe(201);
      return ep.body.id;
    };
    const paused = await endpoint("/paused", [3, 600, 600]);
    const refuses = await endpoint("/refuses", [600]);
    const waits = await endpoint("/waits", [600]);
    const msgId = (await h.svix.message.create(appId, { eventType: "order.paid", payload: {} })).id;
    for (const id of [paused, waits]) await h.waitFor(deliveryOf(msgId, "pending", id));
    // Disabled while its retry (3 s on) waits: given up unsent when the retry comes.
    await h.svix.endpoint.patch(appId, paused, { disabled: true });
    await h.waitFor(deliveryOf(msgId, "dead", paused), 10_000);
    await h.waitFor(deliveryOf(msgId, "dead", refuses));
    await h.svix.endpoint.patch(appId, paused, { disabled: false });

    const { token } = await h.svix.authentication.appPortalAccess(appId, { expiry: 600 });
    const res = await fetch(`${h.url}/api/v1/app/${appId}/msg/${msgId}/endpoint`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: Destination[] };
    const at = (path: string) => data.find((d) => d.url === rx.url(path))!.delivery;
    expect(at("/paused")).toMatchObject({ state: "dead", attemptCount: 1 });
    expect(at("/paused").reason).toBe("endpoint disabled");
    expect(at("/refuses")).toMatchObject({ state: "dead", reason: "HTTP 400 is permanent" });
    expect(at("/waits")).toMatchObject({ state: "pending", reason: null });
  });
});
