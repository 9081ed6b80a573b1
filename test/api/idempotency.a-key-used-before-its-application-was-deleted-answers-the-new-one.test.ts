/**
 * An idempotency key used on an application's paths, or to create it, before the application
 * was deleted (or before its uid moved to another application) does not answer for the
 * application that has that uid now. The key's scope is the path as written, uid and all: a client that deleted "acme",
 * made it again and posted with a key it had used before was answered with the old message, of
 * an application that no longer existed, and nothing was sent.
 */
import { afterEach, describe, expect, it } from "vitest";
import { deliveryOf, startHooklineOn, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let h: TestHookline | null = null;
  let rx: Receiver | null = null;
  afterEach(async () => {
    await h?.stop();
    await rx?.close();
    h = rx = null;
  });

  const order = { eventType: "order.paid", payload: { order: 42 } };

  it("a key used before the application was deleted and made again sends the message", async () => {
    h = await startHooklineOn(kind);
    rx = await Receiver.start(() => ({ status: 200 }));
    const { svix } = h;
    const made = await svix.application.create({ name: "Acme", uid: "acme" });
    await svix.endpoint.create("acme", { url: rx.url("/old") });
    const first = await svix.message.create("acme", order, { idempotencyKey: "order-42" });
    await h.waitFor(deliveryOf(first.id, "succeeded"));
    // The portal link too: a replayed one would be a token deleted with the application.
    await svix.authentication.appPortalAccess("acme", {}, { idempotencyKey: "portal-1" });

    await svix.application.delete("acme");
    const again = await svix.application.create({ name: "Acme", uid: "acme" });
    expect(again.id).not.toBe(made.id);
    await svix.endpoint.create("acme", { url: rx.url("/new") });

    const second = await svix.message.create("acme", order, { idempotencyKey: "order-42" });
    expect(second.id).not.toBe(first.id);
    expect((await svix.message.get("acme", second.id)).id).toBe(second.id);
    await h.waitFor(deliveryOf(second.id, "succeeded"));
    expect(rx.on("/new").map((r) => r.headers["webhook-id"])).toEqual([second.id]);

    const link = await svix.authentication.appPortalAccess(
      "acme",
      {},
      { idempotencyKey: "portal-1" },
    );
    const res = await fetch(`${h.url}/api/v1/app/acme/msg`, {
      headers: { authorization: `Bearer ${link.token}` },
    });
    expect(res.status).toBe(200);
  });

  it("a key used on a body naming the application before it was deleted answers the new one", async () => {
    h = await startHooklineOn(kind);
    const { svix } = h;
    await svix.application.create({ name: "Acme", uid: "acme" });
    // POST /api/v1/tokens names the application in its body, not its path.
    const asked = { name: "acme's token", scope: "app", appId: "acme" };
    const withKey = async () => {
      const res = await fetch(`${h!.url}/api/v1/tokens`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${h!.token}`,
          "content-type": "application/json",
          "idempotency-key": "token-1",
        },
        body: JSON.stringify(asked),
      });
      return { status: res.status, body: (await res.json()) as { id: string; token: string } };
    };
    const first = await withKey();
    expect(first.status).toBe(201);

    await svix.application.delete("acme");
    await svix.application.create({ name: "Acme", uid: "acme" });
    const second = await withKey();
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
    const res = await fetch(`${h.url}/api/v1/app/acme/msg`, {
      headers: { authorization: `Bearer ${second.body.token}` },
    });
    expect(res.status).toBe(200);
  });

  it("a key that created the application before it was deleted creates it again", async () => {
    h = await startHooklineOn(kind);
    const { svix } = h;
    const acme = { name: "Acme", uid: "acme" };
    const made = await svix.application.create(acme, { idempotencyKey: "create-acme" });
    // While it exists, the key replays it.
    expect((await svix.application.create(acme, { idempotencyKey: "create-acme" })).id).toBe(
      made.id,
    );

    await svix.application.delete("acme");
    const again = await svix.application.create(acme, { idempotencyKey: "create-acme" });
    expect(again.id).not.toBe(made.id);
    expect((await svix.application.get("acme")).id).toBe(again.id);
  });

  it("a key used before the application's uid moved to another answers the other one", async () => {
    h = await startHooklineOn(kind);
    const { svix } = h;
    const acme = { name: "Acme", uid: "acme" };
    const made = await svix.application.create(acme, { idempotencyKey: "create-acme" });
    const first = await svix.message.create("acme", order, { idempotencyKey: "order-42" });

    await svix.application.update("acme", { name: "Acme", uid: "acme-old" });
    // The key that made the application now called acme-old makes a new acme.
    const again = await svix.application.create(acme, { idempotencyKey: "create-acme" });
    expect(again.id).not.toBe(made.id);
    expect((await svix.application.get("acme")).id).toBe(again.id);
    const second = await svix.message.create("acme", order, { idempotencyKey: "order-42" });
    expect(second.id).not.toBe(first.id);
    expect((await svix.message.get("acme", second.id)).id).toBe(second.id);
    // The renamed application keeps its message, under its new uid.
    expect((await svix.message.get("acme-old", first.id)).id).toBe(first.id);
  });
});
