/**
 * An idempotency key used on an endpoint's paths, or to create it, before the endpoint was
 * deleted (or before its uid moved to another endpoint) does not answer for the endpoint that has
 * that uid now; nor does one that created an event type since deleted or archived. The keys'
 * scopes name the endpoint (the event type) as the request did: a client that deleted "my-ep",
 * made it again and rotated its secret with a key it had used before was answered 204 and the
 * secret stayed the one it was made with.
 */
import { afterEach, describe, expect, it } from "vitest";
import { deliveryOf, startHooklineOn, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

const SECRET = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
const HOUR_MS = 60 * 60 * 1000;

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let h: TestHookline | null = null;
  let rx: Receiver | null = null;
  afterEach(async () => {
    await h?.stop();
    await rx?.close();
    h = rx = null;
  });

  const order = { eventType: "order.paid", payload: { order: 42 } };

  it("a key that created the endpoint before it was deleted creates it again", async () => {
    h = await startHooklineOn(kind);
    const { svix } = h;
    await svix.application.create({ name: "Acme", uid: "acme" });
    const myEp = { url: "https://receiver.example/hooks", uid: "my-ep" };
    const made = await svix.endpoint.create("acme", myEp, { idempotencyKey: "create-ep" });
    // While it exists, the key replays it.
    expect((await svix.endpoint.create("acme", myEp, { idempotencyKey: "create-ep" })).id).toBe(
      made.id,
    );

    await svix.endpoint.delete("acme", "my-ep");
    const again = await svix.endpoint.create("acme", myEp, { idempotencyKey: "create-ep" });
    expect(again.id).not.toBe(made.id);
    expect((await svix.endpoint.get("acme", "my-ep")).id).toBe(again.id);
  });

  it("keys used on the endpoint's paths before it was deleted act on the new one", async () => {
    h = await startHooklineOn(kind);
    rx = await Receiver.start(() => ({ status: 200 }));
    const { svix } = h;
    const app = await svix.application.create({ name: "Acme", uid: "acme" });
    await svix.endpoint.create("acme", { url: rx.url("/old"), uid: "my-ep" });
    const msg = await svix.message.create("acme", order);
    await h.waitFor(deliveryOf(msg.id, "succeeded"));
    // Each by the application's uid or its id: the scope names it as the path does.
    const withKeys = async () => ({
      rotated: await svix.endpoint.rotateSecret(
        app.id,
        "my-ep",
        { key: SECRET },
        { idempotencyKey: "rotate-1" },
      ),
      example: await svix.endpoint.sendExample(
        "acme",
        "my-ep",
        { eventType: "order.paid" },
        { idempotencyKey: "example-1" },
      ),
      recovery: await svix.endpoint.recover(
        "acme",
        "my-ep",
        { since: new Date(Date.now() - HOUR_MS) },
        { idempotencyKey: "recover-1" },
      ),
      resent: await svix.messageAttempt.resend(app.id, msg.id, "my-ep", {
        idempotencyKey: "resend-1",
      }),
    });
    const first = await withKeys();
    await rx.waitFor(3, "/old");

    await svix.endpoint.delete("acme", "my-ep");
    await svix.endpoint.create("acme", { url: rx.url("/new"), uid: "my-ep" });
    const second = await withKeys();
    expect((await svix.endpoint.getSecret("acme", "my-ep")).key).toBe(SECRET);
    expect(second.example.id).not.toBe(first.example.id);
    expect(second.recovery.id).not.toBe(first.recovery.id);
    // The example and the resent message both reach the new endpoint.
    await rx.waitFor(2, "/new");
    expect(rx.on("/new").map((r) => r.headers["webhook-id"])).toEqual(
      expect.arrayContaining([second.example.id, msg.id]),
    );
  });

  it("an application token's key used before the endpoint was deleted acts on the new one", async () => {
    h = await startHooklineOn(kind);
    const { svix } = h;
    await svix.application.create({ name: "Acme", uid: "acme" });
    const made = await h.api<{ token: string }>("POST", "/api/v1/tokens", {
      name: "acme's portal",
      scope: "app",
      appId: "acme",
    });
    const rotate = async () => {
      const res = await fetch(`${h!.url}/api/v1/app/acme/endpoint/my-ep/secret/rotate`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${made.body.token}`,
          "content-type": "application/json",
          "idempotency-key": "rotate-1",
        },
        body: JSON.stringify({ key: SECRET }),
      });
      return { status: res.status, replayed: res.headers.get("idempotent-replayed") };
    };
    const myEp = { url: "https://receiver.example/hooks", uid: "my-ep" };
    await svix.endpoint.create("acme", myEp);
    expect(await rotate()).toEqual({ status: 204, replayed: null });

    await svix.endpoint.delete("acme", "my-ep");
    await svix.endpoint.create("acme", myEp);
    expect(await rotate()).toEqual({ status: 204, replayed: null });
    expect((await svix.endpoint.getSecret("acme", "my-ep")).key).toBe(SECRET);
  });

  it("a key used before the endpoint's uid moved to another acts on the other one", async () => {
    h = await startHooklineOn(kind);
    const { svix } = h;
    await svix.application.create({ name: "Acme", uid: "acme" });
    const myEp = { url: "https://receiver.example/hooks", uid: "my-ep" };
    const made = await svix.endpoint.create("acme", myEp, { idempotencyKey: "create-ep" });
    const rotate = () =>
      svix.endpoint.rotateSecret("acme", "my-ep", { key: SECRET }, { idempotencyKey: "rotate-1" });
    await rotate();

    await svix.endpoint.patch("acme", "my-ep", { uid: "my-ep-old" });
    // The key that made the endpoint now called my-ep-old makes a new my-ep.
    const again = await svix.endpoint.create("acme", myEp, { idempotencyKey: "create-ep" });
    expect(again.id).not.toBe(made.id);
    expect((await svix.endpoint.get("acme", "my-ep")).id).toBe(again.id);
    await rotate();
    expect((await svix.endpoint.getSecret("acme", "my-ep")).key).toBe(SECRET);
    // The renamed endpoint keeps its own, under its new uid.
    expect((await svix.endpoint.get("acme", "my-ep-old")).id).toBe(made.id);
  });

  it("a key that created an event type since deleted or archived makes it live again", async () => {
    h = await startHooklineOn(kind);
    const { svix } = h;
    const paid = { name: "order.paid", description: "An order was paid" };
    const create = () => svix.eventType.create(paid, { idempotencyKey: "create-type" });
    await create();

    await svix.eventType.delete("order.paid", { expunge: true });
    await create();
    expect((await svix.eventType.get("order.paid")).archived).toBe(false);

    await svix.eventType.delete("order.paid");
    expect((await svix.eventType.get("order.paid")).archived).toBe(true);
    expect((await create()).archived).toBe(false);
    expect((await svix.eventType.get("order.paid")).archived).toBe(false);
  });
});
